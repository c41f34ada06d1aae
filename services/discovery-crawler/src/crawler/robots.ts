import robotsParserModule from 'robots-parser';
import { fetch, type Dispatcher } from 'undici';

// robots-parser is CommonJS; under NodeNext its function may sit on `.default`.
const robotsParser = ((robotsParserModule as unknown as { default?: unknown }).default ?? robotsParserModule) as unknown as typeof robotsParserModule.default;

/** The user agent whose robots.txt rules the crawler follows (and `*`). */
export const USER_AGENT = 'AssayBot';

export interface RobotsRules {
  allowed(url: string): boolean;
  /** Crawl-delay in ms, 0 when none. */
  delayMs: number;
}

/**
 * Fetches `<origin>/robots.txt` through `dispatcher` (the crawler's egress-guarded
 * agent: redirects are followed only to addresses the policy allows); '' when
 * there is none or it cannot be read (then everything is allowed).
 */
export async function fetchRobotsTxt(origin: string, dispatcher: Dispatcher, timeoutMs = 5000): Promise<string> {
  try {
    const res = await fetch(`${origin}/robots.txt`, { dispatcher, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow', headers: { 'user-agent': USER_AGENT } });
    if (!res.ok || !(res.headers.get('content-type') ?? 'text/plain').startsWith('text/')) return '';
    return (await res.text()).slice(0, 500_000);
  } catch {
    return '';
  }
}

export function parseRobots(origin: string, text: string): RobotsRules {
  const robots = robotsParser(`${origin}/robots.txt`, text);
  const delay = robots.getCrawlDelay(USER_AGENT);
  return { allowed: (url) => robots.isAllowed(url, USER_AGENT) !== false, delayMs: delay && delay > 0 ? Math.round(delay * 1000) : 0 };
}
