import type { PageWarning, SessionWarning } from '../db/database.js';

type Code = SessionWarning['code'];

/** What each warning says of the session, given how many pages (or links) it concerns. */
const MESSAGES: Record<Code, (n: number) => string> = {
  empty_page: (n) =>
    `${n} page(s) rendered no text and no links: an HTML shell whose scripts did not render it (a script failed or was refused, or it waits for something a crawler does not do, such as signing in)`,
  script_errors: (n) => `Scripts threw errors while ${n} page(s) loaded: parts of them may not have rendered`,
  not_still: (n) => `${n} page(s) kept changing until the wait limit (CRAWLER_SETTLE_MS) and were read as they were then (animations, polling or a live feed)`,
  handler_links: (n) =>
    `${n} page(s) show no link with an href but have buttons or click handlers: a client-side router may navigate with them. Start the session with interactive: true to have them clicked`,
  robots_blocked: (n) => `robots.txt disallowed ${n} link(s) the crawler found: those pages were not crawled`,
  single_page: () => 'Only the start page was crawled: it shows no link in scope that the crawler could follow',
  no_flows: () => 'No user flow was detected: no form, search, menu shared by pages or record list was found on the crawled pages',
  unreachable_routes: (n) => `${n} client-side route(s) answered an error when loaded directly and could not be reached by clicking through the app either`,
  unexplored_pages: (n) => `${n} page(s) could not be explored whole: their flows may be missing`,
};

/** How much each kind of warning lowers the discovery confidence (a factor per kind present). */
const CONFIDENCE_FACTOR: Record<Code, number> = {
  single_page: 0.3,
  empty_page: 0.5,
  // Most sites disallow a few paths: that says little about what was seen. A crawl it cut short also carries single_page.
  robots_blocked: 0.9,
  handler_links: 0.7,
  script_errors: 0.8,
  unreachable_routes: 0.8,
  not_still: 0.9,
  unexplored_pages: 0.85,
  no_flows: 1,
};

/**
 * A session's warnings, kept while it crawls: each kind once, with how many
 * pages (or links) it concerns and up to five of them. The first time a kind
 * appears is news (the stream says so); more of the same only counts.
 */
export class SessionWarnings {
  private readonly byCode = new Map<Code, SessionWarning>();
  private readonly firstDetail = new Map<Code, string>();

  constructor(existing: SessionWarning[] = []) {
    for (const w of existing) this.byCode.set(w.code, { ...w, pages: [...w.pages] });
  }

  /** Counts one occurrence (`n` for links); true when this kind is new to the session. */
  add(code: Code, page?: string, n = 1, detail?: string): boolean {
    const w = this.byCode.get(code);
    if (detail && !this.firstDetail.has(code)) this.firstDetail.set(code, detail);
    if (w) {
      w.count += n;
      if (page && w.pages.length < 5 && !w.pages.includes(page)) w.pages.push(page);
      w.message = this.message(code, w.count);
      return false;
    }
    this.byCode.set(code, { code, message: this.message(code, n), pages: page ? [page] : [], count: n });
    return true;
  }

  /** A page's own warnings; answers the kinds new to the session. */
  addPage(url: string, warnings: PageWarning[]): Code[] {
    return warnings.filter((w) => this.add(w.code, url, 1, w.message)).map((w) => w.code);
  }

  get(code: Code): SessionWarning | undefined {
    return this.byCode.get(code);
  }

  list(): SessionWarning[] {
    return [...this.byCode.values()].map((w) => ({ ...w, pages: [...w.pages] }));
  }

  private message(code: Code, n: number): string {
    const detail = this.firstDetail.get(code);
    return `${MESSAGES[code](n)}${detail && (code === 'script_errors' || code === 'unexplored_pages') ? ` (first: ${detail})` : ''}.`;
  }
}

/** The factor warnings put on the discovery confidence: each kind present lowers it once. */
export function confidenceFactor(warnings: Array<{ code: Code }>): number {
  return [...new Set(warnings.map((w) => w.code))].reduce((f, code) => f * (CONFIDENCE_FACTOR[code] ?? 1), 1);
}
