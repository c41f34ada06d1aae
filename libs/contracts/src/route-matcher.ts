import { ALIAS_PREFIX, ROUTES, type RouteContract } from './routes/index.js';

/** A call matched to its catalogue entry. */
export interface RouteMatch {
  route: RouteContract;
  /** The path the service sees: a P0 or P2 alias is rewritten to its P1 form (`/api/v1/...`). */
  upstreamPath: string;
}

export interface RouteMatcher {
  /** The entry serving this call, or null (404): a path or method the catalogue does not name. */
  match(method: string, path: string): RouteMatch | null;
}

interface Form {
  route: RouteContract;
  /** Literal segments, or null where the template has a `{param}`. */
  segments: Array<string | null>;
  /** The prefix to replace with `/api/v1/` on the way to the service (aliases only). */
  aliasPrefix?: string;
}

// Traversal and encoded slashes are refused outright rather than normalised differently from the services.
const UNROUTABLE = /(^|\/)(\.|%2e){1,2}(\/|$)|%2f|%5c|\\/i;

const segmentsOf = (template: string) => template.split('/').slice(1).map((s) => (/^\{[^}]+\}$/.test(s) ? null : s));

/** The forms an entry is served under: its own path, then one per alias (P1 paths only). */
function formsOf(route: RouteContract): Form[] {
  if (route.alias) return [];
  const forms: Form[] = [{ route, segments: segmentsOf(route.path) }];
  for (const alias of route.aliases ?? []) {
    if (!route.path.startsWith('/api/v1/')) throw new Error(`${route.method} ${route.path}: only a P1 route has aliases`);
    const prefix = ALIAS_PREFIX[alias];
    forms.push({ route, segments: segmentsOf(prefix + route.path.slice('/api/v1/'.length)), aliasPrefix: prefix });
  }
  return forms;
}

/** Literal segments before parameters, position by position: `/reports/dashboard` is tried before `/reports/{id}`. */
const specificity = (f: Form) => f.segments.map((s) => (s === null ? '1' : '0')).join('');

/**
 * The gateway's router, built once from the route catalogue: each entry's
 * method and path (and its aliases) resolve to it, nothing else does. HEAD
 * is served by the GET entry; the gateway's own paths (`/mcp`) answer every
 * method themselves (MCP's Streamable HTTP answers 405 to the others).
 */
export function routeMatcher(routes: readonly RouteContract[] = ROUTES): RouteMatcher {
  const byKey = new Map<string, Form[]>();
  const seen = new Set<string>();
  for (const form of routes.flatMap(formsOf)) {
    const methods = form.route.service === 'gateway' ? ['*'] : [form.route.method];
    const shape = form.segments.map((s) => s ?? '{}').join('/');
    for (const method of methods) {
      if (seen.has(`${method} ${shape}`)) throw new Error(`The route catalogue serves ${method} /${shape} twice`);
      seen.add(`${method} ${shape}`);
      const key = `${method} ${form.segments.length}`;
      byKey.set(key, [...(byKey.get(key) ?? []), form]);
    }
  }
  for (const forms of byKey.values()) forms.sort((a, b) => specificity(a).localeCompare(specificity(b)));

  const find = (method: string, parts: string[]) =>
    byKey.get(`${method} ${parts.length}`)?.find((f) => f.segments.every((s, i) => (s === null ? parts[i] !== '' : s === parts[i])));

  return {
    match(method, path) {
      if (!path.startsWith('/') || UNROUTABLE.test(path)) return null;
      const parts = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/').slice(1);
      const form = find(method, parts) ?? (method === 'HEAD' ? find('GET', parts) : undefined) ?? find('*', parts);
      if (!form) return null;
      return { route: form.route, upstreamPath: form.aliasPrefix ? '/api/v1/' + path.slice(form.aliasPrefix.length) : path };
    },
  };
}
