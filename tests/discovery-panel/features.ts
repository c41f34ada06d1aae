// Feature lists (apps/<app>/features.json, written from each app's own
// documentation and UI before it was crawled) and how a crawl's results are
// scored against them. Nothing here knows an app: the lists are data.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { PANEL_DIR } from './support.js';

export type FlowType = 'navigation' | 'search' | 'authentication' | 'form_submission' | 'crud' | 'checkout';

export interface ExpectedPage {
  /** Path, query and hash route as a person reaches it; query parameters listed must be present, others may be too. */
  path: string;
  what: string;
}

export interface ExpectedFlow {
  id: string;
  type: FlowType;
  what: string;
  /** The flow is this one when its pages include any of these (absent: any pages). */
  pages_any?: string[];
  /** ... and its steps include any of these actions. */
  steps_any?: string[];
  /** ... and any evidence line contains any of these strings. */
  evidence_any?: string[];
}

export interface FeatureList {
  app: string;
  name: string;
  kind: string;
  written_from: string[];
  crawl: { max_pages: number; max_depth: number; interactive?: boolean; allow_writes?: boolean };
  pages: ExpectedPage[];
  flows: ExpectedFlow[];
}

/** Every app's list, in name order. */
export function loadFeatureLists(): FeatureList[] {
  const dir = path.join(PANEL_DIR, 'apps');
  return readdirSync(dir)
    .filter((name) => existsSync(path.join(dir, name, 'features.json')))
    .sort()
    .map((name) => JSON.parse(readFileSync(path.join(dir, name, 'features.json'), 'utf8')) as FeatureList);
}

/** What the panel reads of a session's results. */
export interface CrawlResults {
  pages: Array<{ url: string; status_code: number; content_type: string }>;
  flows: Array<{ flow_id: string; type: string; pages: string[]; steps?: Array<{ action: string }>; evidence?: string[] }>;
  warnings?: Array<{ code: string }>;
}

/** The app's base URL, a found page's URL and an expected path: does the URL stand for it? */
export function samePage(base: string, found: string, expected: string): boolean {
  const want = new URL(expected, `${base}/`);
  const got = new URL(found);
  const trim = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);
  if (trim(got.pathname) !== trim(want.pathname)) {
    // A folder's index page: `/index.html` stands for `/`.
    if (trim(got.pathname.replace(/\/index\.html$/, '/')) !== trim(want.pathname)) return false;
  }
  for (const [k, v] of want.searchParams) if (got.searchParams.get(k) !== v) return false;
  const route = (h: string) => (h.startsWith('#/') ? trim(h.slice(1)) : '/');
  return route(got.hash) === route(want.hash);
}

export interface FlowMatch {
  expected: ExpectedFlow;
  /** The detected flow that stands for it, if one does. */
  flow_id?: string;
}

export interface Score {
  pagesFound: number;
  pagesExpected: number;
  missingPages: string[];
  flows: FlowMatch[];
  /** Features: the pages (all found), each flow, and the generated cases (all pass). */
  covered: number;
  features: number;
  coverage: number;
  /** Detected flows by type. */
  detectedByType: Record<string, number>;
  /** Pages crawled and flows found, with no warning saying why none. */
  silentNoFlows: boolean;
}

/**
 * Scores a crawl against an app's list. Each detected flow stands for one
 * expected flow at most, matched in list order.
 */
export function scoreCrawl(list: FeatureList, base: string, results: CrawlResults, cases: { passed: number; total: number }): Score {
  // Read as a page: a redirect or an error is not the page.
  const ok = results.pages.filter((p) => p.status_code >= 200 && p.status_code < 300);
  const missingPages = list.pages.filter((e) => !ok.some((p) => samePage(base, p.url, e.path))).map((e) => e.path);
  const used = new Set<string>();
  const flows: FlowMatch[] = list.flows.map((expected) => {
    const hit = results.flows.find((f) => !used.has(f.flow_id) && matches(base, expected, f));
    if (hit) used.add(hit.flow_id);
    return { expected, ...(hit ? { flow_id: hit.flow_id } : {}) };
  });
  const pagesCovered = missingPages.length === 0 ? 1 : 0;
  const casesCovered = cases.total > 0 && cases.passed === cases.total ? 1 : 0;
  const covered = pagesCovered + flows.filter((f) => f.flow_id).length + casesCovered;
  const features = 2 + list.flows.length;
  const detectedByType: Record<string, number> = {};
  for (const f of results.flows) detectedByType[f.type] = (detectedByType[f.type] ?? 0) + 1;
  return {
    pagesFound: list.pages.length - missingPages.length,
    pagesExpected: list.pages.length,
    missingPages,
    flows,
    covered,
    features,
    coverage: covered / features,
    detectedByType,
    silentNoFlows: results.pages.length > 0 && results.flows.length === 0 && !(results.warnings ?? []).some((w) => w.code === 'no_flows'),
  };
}

function matches(base: string, e: ExpectedFlow, f: CrawlResults['flows'][number]): boolean {
  if (f.type !== e.type) return false;
  if (e.pages_any?.length && !f.pages.some((p) => e.pages_any!.some((want) => samePage(base, p, want)))) return false;
  if (e.steps_any?.length && !(f.steps ?? []).some((s) => e.steps_any!.includes(s.action))) return false;
  if (e.evidence_any?.length && !(f.evidence ?? []).some((line) => e.evidence_any!.some((want) => line.includes(want)))) return false;
  return true;
}
