import { sql, type Kysely } from 'kysely';
import { LeasedTable, selectPage } from '@assay/db';
import type { CrawlConfig, DiscoveryDatabase, FlowRow, PageAnalysis, PageRow, SessionRow, SessionStatus, SessionWarning } from '../db/database.js';
import { templateSiblings, type TemplatedEndpoint } from '../crawler/endpoints.js';

type Db = Kysely<DiscoveryDatabase>;

/** NOTIFY channel of session stream events; the payload is the session id. */
export const DISCOVERY_CHANNEL = 'assay_discovery_events';
/** The payload on DISCOVERY_CHANNEL that says a session is ready to crawl (started or resumed): crawlers take it at once. */
export const SESSIONS_READY = 'sessions-ready';

/** Tells the crawlers a session is ready to crawl (sent at commit). */
export async function notifySessionsReady(db: Db): Promise<void> {
  await sql`select pg_notify(${DISCOVERY_CHANNEL}, ${SESSIONS_READY})`.execute(db);
}

/** A session is given up after its crawler died this many times. */
export const MAX_ATTEMPTS = 3;

/** A running session is waiting for a crawler when none holds it (new, resumed, handed back, or its crawler's lease ran out). */
const SESSIONS = new LeasedTable<SessionRow, SessionStatus>({ table: 'sessions', key: 'id', held: ['running'], waiting: 'running', failed: 'failed', order: 'started_at', maxAttempts: MAX_ATTEMPTS });

export async function insertSession(db: Db, s: { org_id: string; project_id: string; target_url: string; config: CrawlConfig; estimated_completion: Date }): Promise<SessionRow> {
  return db
    .insertInto('sessions')
    .values({ ...s, config: JSON.stringify(s.config), error: null, current_page: null, robots_txt: null, lease_owner: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findSession(db: Db, orgId: string, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

/** A session of the list with what it found so far. */
export type ListedSession = SessionRow & { pages_crawled: number; flows_detected: number };

/** An organization's sessions, newest first, optionally of one project and in one status; with the total that matched. */
export async function listSessions(db: Db, orgId: string, f: { projectId?: string; status?: SessionStatus; limit: number; offset: number }): Promise<{ rows: ListedSession[]; total: number }> {
  let q = db.selectFrom('sessions').where('org_id', '=', orgId);
  if (f.projectId) q = q.where('project_id', '=', f.projectId);
  if (f.status) q = q.where('status', '=', f.status);
  const { rows, total } = await selectPage(
    q
      .selectAll('sessions')
      .select((eb) => [
        eb.selectFrom('pages').select(eb.fn.countAll<number>().as('n')).whereRef('pages.session_id', '=', 'sessions.id').where('pages.state', '=', 'crawled').as('pages_crawled'),
        eb.selectFrom('flows').select(eb.fn.countAll<number>().as('n')).whereRef('flows.session_id', '=', 'sessions.id').as('flows_detected'),
      ])
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(f.limit)
      .offset(f.offset),
    q,
  );
  return { rows: rows.map((r) => ({ ...r, pages_crawled: Number(r.pages_crawled ?? 0), flows_detected: Number(r.flows_detected ?? 0) })), total };
}

/** Moves a session between statuses if it is in one of `from`; undefined otherwise. */
export async function transition(db: Db, orgId: string, id: string, from: SessionStatus[], patch: Record<string, unknown>): Promise<SessionRow | undefined> {
  return db
    .updateTable('sessions')
    .set({ ...patch, lease_owner: null, lease_expires_at: null })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes a running session nobody holds (new, resumed, or whose crawler's
 * lease expired) for this crawler; undefined when there is none.
 */
export async function claimSession(db: Db, owner: string, leaseSeconds: number): Promise<SessionRow | undefined> {
  return SESSIONS.claimNext(db, owner, leaseSeconds, 'running');
}

/** Hands a running session back (a clean shutdown): another crawler takes it at once, and it does not count as a crash. */
export async function releaseSession(db: Db, id: string, owner: string): Promise<void> {
  await SESSIONS.handBack(db, id, owner);
}

/** Running sessions whose crawler died too often: failed with a reason. */
export async function failAbandoned(db: Db): Promise<SessionRow[]> {
  return SESSIONS.failExhausted(db, { error: `The crawler stopped ${MAX_ATTEMPTS} times while crawling this session (lease expired)`, completed_at: sql`now()` });
}

/** Extends the lease; the status now, or undefined when the session is no longer ours. */
export async function renewLease(db: Db, id: string, owner: string, leaseSeconds: number): Promise<SessionStatus | undefined> {
  return SESSIONS.renew(db, id, owner, leaseSeconds);
}

/** Locks the session if this crawler still holds it and it is running (page and stream inserts need not wait: see LeasedTable). */
export async function lockIfHeld(db: Db, id: string, owner: string): Promise<boolean> {
  return SESSIONS.lockIfHeld(db, id, owner);
}

/** Notes the page being loaded, while this crawler still holds the running session. */
export async function setCurrentPage(db: Db, id: string, owner: string, url: string): Promise<void> {
  await db.updateTable('sessions').set({ current_page: url }).where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'running').execute();
}

/**
 * Locks the session if this crawler still holds it and it is running, and
 * counts one more page crawled and not yet reported to auth (sets the patterns
 * count when given): in one statement, first in a page's transaction. Answers
 * the pages not yet reported; undefined when the session is no longer this
 * crawler's (nothing changed).
 */
export async function holdAndCountPage(db: Db, id: string, owner: string, patternsFound: number | undefined): Promise<number | undefined> {
  const row = await db
    .updateTable('sessions')
    .set((eb) => ({ pages_unmetered: eb('pages_unmetered', '+', 1), ...(patternsFound !== undefined ? { patterns_found: patternsFound } : {}) }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .returning('pages_unmetered')
    .executeTakeFirst();
  return row?.pages_unmetered;
}

/**
 * Takes the session's pages not yet reported to auth (locks its row; zero
 * when there are none or no such session), for a `discovery.pages.crawled`
 * event written in the same transaction.
 */
export async function takeUnmeteredPages(db: Db, id: string): Promise<number> {
  const row = await db.selectFrom('sessions').select('pages_unmetered').where('id', '=', id).forUpdate().executeTakeFirst();
  const pages = row?.pages_unmetered ?? 0;
  if (pages > 0) await db.updateTable('sessions').set({ pages_unmetered: 0 }).where('id', '=', id).execute();
  return pages;
}

export async function updateSession(db: Db, id: string, patch: Record<string, unknown>): Promise<SessionRow | undefined> {
  return db.updateTable('sessions').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Replaces the session's warnings. */
export async function setWarnings(db: Db, id: string, warnings: SessionWarning[]): Promise<void> {
  await db.updateTable('sessions').set({ warnings: JSON.stringify(warnings) }).where('id', '=', id).execute();
}

export async function currentStatus(db: Db, id: string): Promise<SessionStatus | undefined> {
  return (await db.selectFrom('sessions').select('status').where('id', '=', id).executeTakeFirst())?.status;
}

export interface SessionCounts {
  discovered: number;
  crawled: number;
  pending: number;
  flows: number;
  endpoints: number;
}

export async function countSession(db: Db, id: string): Promise<SessionCounts> {
  const row = await sql<Omit<SessionCounts, 'endpoints'>>`
    select (select count(*) from pages where session_id = ${id})::int as discovered,
           (select count(*) from pages where session_id = ${id} and state = 'crawled')::int as crawled,
           (select count(*) from pages where session_id = ${id} and state = 'pending')::int as pending,
           (select count(*) from flows where session_id = ${id})::int as flows`.execute(db);
  // Endpoints count as the results list them: templated, which SQL cannot do.
  return { ...row.rows[0]!, endpoints: (await listEndpoints(db, id)).length };
}

/** A page of the frontier; `via` when a click in the app reached it (a client-side route). */
export interface FrontierPage {
  id: number;
  url: string;
  depth: number;
  via: { from: string; selector: string } | null;
}

/** Adds URLs to the frontier; the ones already known are left alone. Returns those added. */
export async function addPages(db: Db, sessionId: string, pages: Array<{ url: string; depth: number; via?: { from: string; selector: string } }>): Promise<FrontierPage[]> {
  if (!pages.length) return [];
  const rows = await db
    .insertInto('pages')
    .values(pages.map((p) => ({ session_id: sessionId, url: p.url, depth: p.depth, title: null, status_code: null, content_type: null, response_time_ms: null, analysis: null, via: p.via ? JSON.stringify(p.via) : null, reached_by: null })))
    .onConflict((oc) => oc.columns(['session_id', 'url']).doNothing())
    .returning(['id', 'url', 'depth', 'via'])
    .execute();
  return rows.map((r) => ({ ...r, via: r.via as FrontierPage['via'] }));
}

/** The frontier: pages not crawled yet, shallowest first, then in discovery order. */
export async function pendingPages(db: Db, sessionId: string): Promise<FrontierPage[]> {
  const rows = await db.selectFrom('pages').select(['id', 'url', 'depth', 'via']).where('session_id', '=', sessionId).where('state', '=', 'pending').orderBy('depth').orderBy('id').execute();
  return rows.map((r) => ({ ...r, via: r.via as FrontierPage['via'] }));
}

export async function savePage(
  db: Db,
  id: number,
  p: { title: string; status_code: number; content_type: string; response_time_ms: number; links_found: number; forms_found: number; api_calls: number; analysis: PageAnalysis | null; reached_by: 'direct' | 'in_app' },
): Promise<void> {
  await db
    .updateTable('pages')
    .set({ ...p, state: 'crawled', analysis: p.analysis ? JSON.stringify(p.analysis) : null, crawled_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

export async function crawledPages(db: Db, sessionId: string): Promise<PageRow[]> {
  return db.selectFrom('pages').selectAll().where('session_id', '=', sessionId).where('state', '=', 'crawled').orderBy('crawled_at').orderBy('id').execute();
}

/** Response times kept per endpoint row: enough for a median, bounded for a chatty page. */
export const ENDPOINT_TIMINGS_KEPT = 500;

/** Records an API call: one row per method and id-templated endpoint, with the latest status and every call's timing. */
export async function recordEndpoint(db: Db, sessionId: string, e: { method: string; endpoint: string; response_time_ms: number; status_code: number }): Promise<void> {
  await db
    .insertInto('api_endpoints')
    .values({ session_id: sessionId, ...e, response_times_ms: [e.response_time_ms] })
    .onConflict((oc) =>
      oc.columns(['session_id', 'method', 'endpoint']).doUpdateSet({
        response_time_ms: e.response_time_ms,
        status_code: e.status_code,
        calls: sql`api_endpoints.calls + 1`,
        response_times_ms: sql`case when cardinality(api_endpoints.response_times_ms) < ${ENDPOINT_TIMINGS_KEPT} then array_append(api_endpoints.response_times_ms, ${e.response_time_ms}::int) else api_endpoints.response_times_ms end`,
      }),
    )
    .execute();
}

/** The session's API endpoints, siblings templated by structure (see templateSiblings). */
export async function listEndpoints(db: Db, sessionId: string): Promise<TemplatedEndpoint[]> {
  const rows = await db.selectFrom('api_endpoints').select(['method', 'endpoint', 'status_code', 'calls', 'response_times_ms']).where('session_id', '=', sessionId).execute();
  return templateSiblings(rows);
}

/**
 * Stores a flow, or updates the one with its key when more evidence changed
 * it (a checkout that gained its payment page); true when it is new.
 */
export async function upsertFlow(db: Db, f: Omit<FlowRow, 'created_at' | 'pages' | 'steps' | 'evidence'> & { pages: string; steps: string; evidence: string }): Promise<boolean> {
  const row = await db
    .insertInto('flows')
    .values(f)
    .onConflict((oc) =>
      oc.columns(['session_id', 'flow_key']).doUpdateSet({ pages: f.pages, steps: f.steps, confidence: f.confidence, evidence: f.evidence }),
    )
    .returning(sql<boolean>`xmax = 0`.as('inserted'))
    .executeTakeFirstOrThrow();
  return row.inserted;
}

export async function listFlows(db: Db, sessionId: string): Promise<FlowRow[]> {
  return db.selectFrom('flows').selectAll().where('session_id', '=', sessionId).orderBy('created_at').orderBy('flow_id').execute();
}

/** Appends to the session's replayable stream and wakes listeners on commit. */
export async function appendStreamEvent(db: Db, sessionId: string, type: string, data: Record<string, unknown>): Promise<void> {
  // One round trip: the insert and the wake-up of the stream's listeners (sent at commit).
  await sql`with added as (insert into session_events (session_id, type, data) values (${sessionId}, ${type}, ${JSON.stringify(data)}) returning 1)
    select pg_notify(${DISCOVERY_CHANNEL}, ${sessionId}) from added`.execute(db);
}

export async function streamEventsAfter(db: Db, sessionId: string, afterSeq: number) {
  return db.selectFrom('session_events').select(['seq', 'type', 'data']).where('session_id', '=', sessionId).where('seq', '>', afterSeq).orderBy('seq').limit(500).execute();
}

/** Notes the test cases made from the session's flows. */
export async function recordGeneratedCases(db: Db, sessionId: string, cases: Array<{ test_case_id: string; flow_id: string; name: string }>): Promise<void> {
  if (!cases.length) return;
  await db
    .insertInto('generated_cases')
    .values(cases.map((c) => ({ session_id: sessionId, ...c })))
    .onConflict((oc) => oc.columns(['session_id', 'test_case_id']).doNothing())
    .execute();
}

/** The test cases made from the session's flows, oldest first. */
export async function listGeneratedCases(db: Db, sessionId: string) {
  return db.selectFrom('generated_cases').select(['test_case_id', 'flow_id', 'name', 'created_at']).where('session_id', '=', sessionId).orderBy('created_at').orderBy('name').execute();
}
