import type { ColumnType, Generated, Selectable } from 'kysely';
import type { DefaultTimestamp, NullableTimestamp, Json } from '@assay/db';
import type { OutboxTables } from '@assay/bus';
import type { AccessibilityViolation } from '@assay/steps';

export type SessionStatus = 'running' | 'paused' | 'cancelled' | 'completed' | 'failed';
export const ENDED: readonly SessionStatus[] = ['cancelled', 'completed', 'failed'];

export interface CrawlConfig {
  max_pages: number;
  max_depth: number;
  include_patterns: string[];
  exclude_patterns: string[];
  headless: boolean;
  wait_for_navigation: boolean;
  enable_ai_analysis: boolean;
  request_delay_ms: number;
  /** Fill and submit forms, click in-page buttons (absent in sessions from before: false). */
  interactive?: boolean;
  /** Interactive exploration may change data on the target (absent in sessions from before: false, writes held). */
  allow_writes?: boolean;
  /** Scan each crawled page with axe-core (WCAG 2 A and AA; absent: false). */
  accessibility?: boolean;
}

export interface SessionTable {
  id: Generated<string>;
  org_id: string;
  project_id: string;
  target_url: string;
  config: Json<CrawlConfig>;
  status: Generated<SessionStatus>;
  error: string | null;
  current_page: string | null;
  /** robots.txt as fetched when the session first ran ('' when there is none). */
  robots_txt: string | null;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  started_at: DefaultTimestamp;
  estimated_completion: NullableTimestamp;
  paused_at: NullableTimestamp;
  resumed_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  patterns_found: Generated<number>;
  /** Pages crawled since the last `discovery.pages.crawled` event (see sessions.repository, countPageCrawled). */
  pages_unmetered: Generated<number>;
  /** What may make the results incomplete (shell pages, script errors, robots.txt refusals, ...), kept up to date while crawling. */
  warnings: ColumnType<SessionWarning[], string | undefined, string>;
  /** The analysis service's enrichment (enable_ai_analysis), written once the crawl ended. */
  enrichment: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
}

export type PageState = 'pending' | 'crawled';

/** What the crawler read from a page, kept for flows, patterns and test generation. */
export interface PageAnalysis {
  links: string[];
  forms: FormInfo[];
  headings: Array<{ selector: string; text: string }>;
  lists: Array<{ selector: string; items: number; kind: 'table' | 'list'; has_actions: boolean }>;
  /** Landmarks, menus, tab lists and lists of links: their place, targets and the visible names of their links (absent in pages read before). */
  navs: Array<{ selector: string; location: string; links: number; hrefs: string[]; labels?: string[]; selectors?: string[]; kind?: 'landmark' | 'list' }>;
  modals: string[];
  pagination: string[];
  /** Write calls the page's own scripts make (from the network or the script text): method and templated path. */
  writes: Array<{ method: string; endpoint: string }>;
  /** XHR/fetch GETs while loading: templated path and full URL. */
  reads: Array<{ endpoint: string; url: string; status: number }>;
  /** Links to other pages, with a stable selector, keyed by target URL. */
  link_selectors: Record<string, string>;
  /** Interactive sessions: the calls that filling and submitting a form (`cause`: its selector) or clicking a button caused. */
  observed?: Array<{ method: string; endpoint: string; status: number; cause: string; held?: boolean }>;
  /** Characters of visible text the page rendered (absent in pages crawled before it was read). */
  text_chars?: number;
  /** Visible elements acting on a click without being a link with an href or a button. */
  handler_links?: number;
  /** Client-side routes a click on this page reached (pushState, replaceState, hash), with the element clicked. */
  routes?: Array<{ url: string; selector: string; text: string }>;
  /** Clicks on menu items or link-like elements that moved the page to a part of itself (`#tag/Books`), with the element it names. */
  sections?: Array<{ selector: string; text: string; target: string; section?: string }>;
  /** Interactive sessions: what the page's buttons opened (dialogs, menus, panels), read like a page. */
  panels?: PanelInfo[];
  /** Interactive sessions that allow writes: an item created, edited and deleted through the page. */
  records?: RecordsInfo;
  /** Interactive sessions: search boxes typed into, the calls typing caused and the suggestions shown. */
  typeahead?: TypeAheadInfo[];
  /** What may have kept the crawler from seeing the whole page (see PageWarning). */
  warnings?: PageWarning[];
  /** `accessibility: true` sessions: axe-core's WCAG 2 A/AA violations of the page as loaded, or why the scan failed. */
  accessibility?: { violations: AccessibilityViolation[] } | { error: string };
}

/** Something a button opened, with the button: a dialog's form (a sign-in), a menu's links. */
export interface PanelInfo {
  /** The button that opened it (a stable selector) and its text. */
  opener: string;
  /** Clicks that had to come first for the opener to be there (an operation expanded, a menu opened), in order. */
  before?: string[];
  opener_text: string;
  kind: 'dialog' | 'menu' | 'listbox' | 'panel';
  selector: string;
  /** Its heading or accessible name. */
  title: string;
  forms: FormInfo[];
  links: string[];
}

/** Records made, edited and deleted through the page (interactive sessions that allow writes). */
export interface RecordsInfo {
  /** The lone text box typed into (then Enter) and its label. */
  input: string;
  label: string;
  /** The text typed: the item showed it. */
  value: string;
  /** The item that appeared (its list item or row). */
  item: string;
  /** Links the page showed once it held an item (filters, counts). */
  links: string[];
  /** What a double-click on the item's text opened, and the new text saved with Enter. */
  edit?: { open: string; editor: string; value: string };
  /** The button inside the item (once hovered) that removed it. */
  delete?: { hover: string; button: string };
}

/** A search box that was typed into. */
export interface TypeAheadInfo {
  selector: string;
  label: string;
  /** What was typed: a word of the page's own text. */
  term: string;
  /** The XHR/fetch calls typing caused. */
  calls: Array<{ method: string; url: string; status: number }>;
  /** The suggestions or results that appeared, if any did: the list box the box controls, else what typing added that mentions the term. */
  suggestions: { selector: string; options: number; matches_term: boolean } | null;
  /** The click that made the box appear (a search dialog's opener), when it was not on the page before. */
  opener?: string;
}

export type PageWarningCode = 'empty_page' | 'script_errors' | 'not_still' | 'handler_links' | 'unexplored_pages';

export interface PageWarning {
  code: PageWarningCode;
  message: string;
}

/** A session-level warning: what may make the results incomplete, with up to five example pages. */
export interface SessionWarning {
  code: PageWarningCode | 'robots_blocked' | 'single_page' | 'no_flows' | 'unreachable_routes';
  message: string;
  /** Pages it applies to (at most five shown) and how many there were. */
  pages: string[];
  count: number;
}

export interface FieldInfo {
  tag: string;
  type: string;
  name: string;
  selector: string;
  label: string;
  autocomplete: string;
}

export interface FormInfo {
  selector: string;
  method: string;
  /** Absolute target URL; '' when the form is handled by script. */
  action: string;
  fields: FieldInfo[];
  submit: string | null;
  /** None of its fields is visible (a dialog not open yet, a no-script fallback). */
  hidden?: boolean;
  /** It says it searches: its role, a search landmark, or a field that is a search box by type, role, name, label or placeholder. */
  search?: boolean;
}

export interface PageTable {
  id: Generated<number>;
  session_id: string;
  url: string;
  depth: number;
  state: Generated<PageState>;
  title: string | null;
  status_code: number | null;
  content_type: string | null;
  response_time_ms: number | null;
  links_found: Generated<number>;
  forms_found: Generated<number>;
  api_calls: Generated<number>;
  analysis: Json<PageAnalysis> | null;
  /** A client-side route found by a click: the page and element that reach it in the app (for servers without history fallback). */
  via: Json<{ from: string; selector: string }> | null;
  /** How the page was read: `direct` (its URL loaded) or `in_app` (its direct load failed; reached by clicking through the app). */
  reached_by: string | null;
  discovered_at: DefaultTimestamp;
  crawled_at: NullableTimestamp;
}

export interface ApiEndpointTable {
  session_id: string;
  method: string;
  endpoint: string;
  /** The latest call's. */
  response_time_ms: number;
  status_code: number;
  calls: Generated<number>;
  /** Every call's, oldest first, at most ENDPOINT_TIMINGS_KEPT. */
  response_times_ms: Generated<number[]>;
}

export interface FlowStep {
  /** `type`: key by key into a type-ahead; `wait_for`: client-rendered content the next step needs (its selector). */
  action: 'navigate' | 'fill_form' | 'submit' | 'click' | 'type' | 'wait_for' | 'press' | 'dblclick' | 'hover' | 'wait_gone';
  url?: string;
  selector?: string;
  value?: string;
}

export interface FlowTable {
  session_id: string;
  flow_id: string;
  /** Identity of a flow across re-detections (type and pages). */
  flow_key: string;
  type: string;
  pages: Json<string[]>;
  steps: Json<FlowStep[]>;
  confidence: number;
  evidence: Json<string[]>;
  created_at: DefaultTimestamp;
}

/** A test case made from one of the session's flows (the case itself lives in the test-case service). */
export interface GeneratedCaseTable {
  session_id: string;
  test_case_id: string;
  flow_id: string;
  name: string;
  created_at: DefaultTimestamp;
}

export interface SessionEventTable {
  seq: Generated<number>;
  session_id: string;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: DefaultTimestamp;
}

export interface DiscoveryDatabase extends OutboxTables {
  sessions: SessionTable;
  pages: PageTable;
  api_endpoints: ApiEndpointTable;
  flows: FlowTable;
  session_events: SessionEventTable;
  generated_cases: GeneratedCaseTable;
}

export type SessionRow = Selectable<SessionTable>;
export type PageRow = Selectable<PageTable>;
export type FlowRow = Selectable<FlowTable>;
