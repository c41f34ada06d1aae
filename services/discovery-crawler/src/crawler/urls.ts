import micromatch from 'micromatch';

/**
 * The one form of a URL the crawler stores and visits: http(s) only, fragment
 * dropped unless it is a hash route (`#/about`), query kept as written, host lower-cased and default port dropped
 * (WHATWG URL does both), dot segments resolved, and a trailing slash removed
 * from every path but `/`. Undefined for anything else (mailto:, javascript:, …).
 */
export function normaliseUrl(raw: string, base?: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // A hash route (`#/about`, `#!/about`) is a page of a client-side router; any other fragment is a place on a page.
  if (!/^#!?\//.test(url.hash)) url.hash = '';
  url.username = '';
  url.password = '';
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url.href;
}

export const sameOrigin = (a: string, b: string): boolean => new URL(a).origin === new URL(b).origin;

/**
 * Include/exclude globs on the URL path (micromatch: `*` stays within one
 * segment, `**` crosses segments). With includes, a path must match one.
 */
export function makeScope(include: string[], exclude: string[]): (url: string) => boolean {
  const opts = { dot: true };
  return (url) => {
    const path = new URL(url).pathname;
    if (exclude.length && micromatch.isMatch(path, exclude, opts)) return false;
    return include.length === 0 || micromatch.isMatch(path, include, opts);
  };
}

const ID_SEGMENT = /^(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{24,}|[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*\d[A-Za-z0-9_-]{6,})$/i;

/**
 * The path of an API call with ids templated: `/api/products/42?x=1` →
 * `/api/products/{id}`. With `term` (a call that typing into a search box
 * caused), a last segment that is the term or a prefix of it (decoded, any
 * case) becomes `{query}`: `/data/search/acm` → `/data/search/{query}`.
 */
export function templateEndpoint(url: string, term?: string): string {
  const { pathname } = new URL(url);
  const segments = pathname.split('/').map((seg) => (ID_SEGMENT.test(seg) ? '{id}' : seg));
  const last = segments[segments.length - 1]!;
  if (term && last && isPrefixOf(last, term)) segments[segments.length - 1] = '{query}';
  return segments.join('/');
}

function isPrefixOf(segment: string, term: string): boolean {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Not valid percent-encoding: compare as written.
  }
  return term.toLowerCase().startsWith(decoded.toLowerCase());
}
