import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import type { CallRecord } from './api.js';
import type { Receipt } from './receiver.js';

/**
 * The end-of-run audit: reads the database and the receiver's log, assumes
 * nothing the services say about themselves, and returns every finding.
 */

export interface FaultWindow {
  kind: string;
  target: string;
  start: number;
  /** When the thing was back (ready); plus a grace in `inWindow`. */
  end: number;
}

export interface AuditResult {
  executions: { total: number; terminal: number; byStatus: Record<string, number>; cases: number; missingResults: string[]; duplicateResults: string[]; unfinishedResults: string[] };
  stuck: Array<{ what: string; id: string; detail: string }>;
  events: { committed: number; expected: number; delivered: number; lost: Array<{ webhook: string; event: string; eventId: string }>; duplicates: number; earlier: number; phantom: string[]; mismatched: string[]; outOfOrder: number; intakeOutOfOrder: number; intakePairs: number; unpublished: number };
  unexpected5xx: CallRecord[];
  expected503: number;
  refusedWhileDown: number;
}

/** A 5xx (or no answer) is expected only while something is down, plus this long after it is back. */
export const FAULT_GRACE_MS = 10_000;

export function classifyCalls(calls: CallRecord[], windows: FaultWindow[]): Pick<AuditResult, 'unexpected5xx' | 'expected503' | 'refusedWhileDown'> {
  // Redis and the receiver are no dependency of an API answer (rate limits fall back to the process): their
  // windows excuse nothing.
  const overlaps = (c: CallRecord) => windows.some((w) => (w.kind === 'kill' || w.kind === 'postgres' || w.kind === 'kafka') && c.start <= w.end + FAULT_GRACE_MS && c.end >= w.start);
  const gatewayDown = (c: CallRecord) => windows.some((w) => w.target === 'gateway' && c.start <= w.end + FAULT_GRACE_MS && c.end >= w.start);
  const unexpected5xx: CallRecord[] = [];
  let expected503 = 0;
  let refusedWhileDown = 0;
  for (const c of calls) {
    if (c.status === 0) {
      // No answer at all is fine only while the gateway itself is being restarted.
      if (gatewayDown(c)) refusedWhileDown++;
      else unexpected5xx.push(c);
    } else if (c.status >= 500) {
      if (c.status === 503 && c.retryAfter && overlaps(c)) expected503++;
      else unexpected5xx.push(c);
    }
  }
  return { unexpected5xx, expected503, refusedWhileDown };
}

export async function audit(databaseUrl: string, orgIds: string[], since: Date, receipts: Receipt[], livePids: number[]): Promise<Omit<AuditResult, 'unexpected5xx' | 'expected503' | 'refusedWhileDown'>> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const stuck: AuditResult['stuck'] = [];
    const deadOwner = (owner: string | null) => {
      const pid = owner ? Number(/-(\d+)-[0-9a-f]+$/.exec(owner)?.[1]) : NaN;
      return Number.isFinite(pid) && !livePids.includes(pid);
    };

    // Executions (plan runs and exploratory runs): terminal, one result per case.
    const { rows: executions } = await db.query(
      `select id, status, total_tests, lease_owner, lease_expires_at < now() as lease_expired from execution.executions where org_id = any($1) and created_at >= $2`,
      [orgIds, since],
    );
    const byStatus: Record<string, number> = {};
    for (const e of executions) byStatus[e.status] = (byStatus[e.status] ?? 0) + 1;
    const terminal = executions.filter((e) => ['completed', 'failed', 'cancelled'].includes(e.status));
    for (const e of executions.filter((x) => !terminal.includes(x))) {
      stuck.push({ what: 'execution', id: e.id, detail: `${e.status}, lease ${e.lease_owner ?? 'none'}${deadOwner(e.lease_owner) ? ' (dead worker)' : ''}${e.lease_expired ? ', lease expired' : ''}` });
    }
    const { rows: results } = await db.query(
      `select r.execution_id, r.test_case_id, r.position, r.status from execution.test_results r join execution.executions e on e.id = r.execution_id
        where e.org_id = any($1) and e.created_at >= $2`,
      [orgIds, since],
    );
    const resultsOf = new Map<string, Array<{ test_case_id: string; position: number; status: string }>>();
    for (const r of results) resultsOf.set(r.execution_id, [...(resultsOf.get(r.execution_id) ?? []), r]);
    const missingResults: string[] = [];
    const duplicateResults: string[] = [];
    const unfinishedResults: string[] = [];
    let cases = 0;
    for (const e of executions.filter((x) => x.status === 'completed')) {
      const rs = resultsOf.get(e.id) ?? [];
      cases += rs.length;
      if (rs.length !== e.total_tests) missingResults.push(`${e.id}: ${rs.length} results for ${e.total_tests} cases`);
      const positions = rs.map((r) => r.position);
      if (new Set(positions).size !== positions.length) duplicateResults.push(e.id);
      const open = rs.filter((r) => !['passed', 'failed', 'skipped'].includes(r.status));
      if (open.length) unfinishedResults.push(`${e.id}: ${open.map((r) => r.status).join(',')}`);
    }

    // Discovery sessions, analyses and enrichments: nothing left running or leased.
    const { rows: sessions } = await db.query(
      `select id, status, lease_owner from discovery.sessions where org_id = any($1) and started_at >= $2 and status in ('running', 'paused')`,
      [orgIds, since],
    );
    for (const s of sessions) stuck.push({ what: 'discovery session', id: s.id, detail: `${s.status}, lease ${s.lease_owner ?? 'none'}${deadOwner(s.lease_owner) ? ' (dead worker)' : ''}` });
    const { rows: analyses } = await db.query(
      `select id, status, lease_owner from analysis.analyses where org_id = any($1) and created_at >= $2 and status in ('waiting', 'pending', 'running')`,
      [orgIds, since],
    );
    for (const a of analyses) stuck.push({ what: 'analysis', id: a.id, detail: `${a.status}, lease ${a.lease_owner ?? 'none'}${deadOwner(a.lease_owner) ? ' (dead worker)' : ''}` });
    const { rows: enrichments } = await db.query(
      `select session_id as id, status, lease_owner from analysis.enrichments where org_id = any($1) and created_at >= $2 and status in ('pending', 'running')`,
      [orgIds, since],
    );
    for (const a of enrichments) stuck.push({ what: 'enrichment', id: a.id, detail: `${a.status}, lease ${a.lease_owner ?? 'none'}` });

    // The bus (pg: pg-boss jobs): nothing still queued or held by a worker, nothing given up (dead letters).
    for (const j of await busJobs(db, since)) stuck.push({ what: 'bus job', id: j.id, detail: `${j.name} ${j.state}${j.started_on ? ` since ${new Date(j.started_on).toISOString()}` : ''}` });

    // Outboxes: every schema that has one.
    const { rows: schemas } = await db.query(`select table_schema from information_schema.tables where table_name = 'outbox'`);
    const events: Array<{ id: string; seq: number; schema: string; key: string; created_at: Date; published: boolean; envelope: any }> = [];
    for (const { table_schema: schema } of schemas) {
      const { rows } = await db.query(
        `select id, seq, key, created_at, published_at is not null as published, envelope from "${schema}".outbox where created_at >= $1 and envelope->>'organization_id' = any($2)`,
        [since, orgIds],
      );
      for (const r of rows) events.push({ ...r, seq: Number(r.seq), schema });
    }
    const unpublished = events.filter((e) => !e.published);
    for (const e of unpublished) stuck.push({ what: 'outbox event', id: e.id, detail: `${e.schema} ${e.envelope.event} not published` });
    const eventById = new Map(events.map((e) => [e.id, e]));

    // Webhooks and what each should have received.
    const { rows: hooks } = await db.query(`select id, org_id, events, created_at, enabled from webhook.webhooks where org_id = any($1)`, [orgIds]);
    const expected: Array<{ webhook: string; event: (typeof events)[number] }> = [];
    for (const h of hooks) {
      const types: string[] = Array.isArray(h.events) ? h.events : JSON.parse(h.events);
      for (const e of events) {
        if (e.envelope.organization_id === h.org_id && types.includes(e.envelope.event) && e.created_at > h.created_at) expected.push({ webhook: h.id, event: e });
      }
      if (!h.enabled) stuck.push({ what: 'webhook', id: h.id, detail: 'disabled' });
    }
    const { rows: deliveries } = await db.query(`select id, webhook_id, event_id, status, next_attempt_at, created_at from webhook.deliveries where org_id = any($1)`, [orgIds]);
    const deliveryById = new Map(deliveries.map((d) => [d.id, d]));
    for (const d of deliveries.filter((x) => x.status === 'pending' && x.next_attempt_at < new Date(Date.now() - 60_000))) {
      stuck.push({ what: 'delivery', id: d.id, detail: `pending, due ${d.next_attempt_at.toISOString()}` });
    }

    // An event id in any outbox, whenever committed (checked only for deliveries of events outside the run's set).
    const committedBefore = async (eventId: string): Promise<boolean> => {
      for (const { table_schema: schema } of schemas) {
        const { rows } = await db.query(`select 1 from "${schema}".outbox where id = $1`, [eventId]);
        if (rows.length) return true;
      }
      return false;
    };
    let earlier = 0;

    // The receiver's log, by event id: a 2xx answer counts as delivered.
    const got = new Map<string, number>();
    const phantom: string[] = [];
    const mismatched: string[] = [];
    const firstSeen = new Map<string, number>();
    for (const [i, r] of receipts.entries()) {
      const d = deliveryById.get(r.deliveryId);
      if (!d) {
        phantom.push(`delivery ${r.deliveryId} (${r.event}) has no delivery row`);
        continue;
      }
      if (d.event_id === null) continue; // a test event
      const e = eventById.get(d.event_id);
      if (!e) {
        // Not among the run's events: committed before the run (the setup's, taken in by the dispatcher after the
        // webhook was made, which a lagging bus allows), or never committed at all.
        if (await committedBefore(d.event_id)) earlier++;
        else phantom.push(`delivery ${r.deliveryId}: event ${d.event_id} (${r.event}) is in no outbox`);
        continue;
      }
      if (r.body.event !== e.envelope.event || r.body.timestamp !== e.envelope.timestamp || r.body.organization_id !== e.envelope.organization_id || r.webhookId !== d.webhook_id || !isDeepStrictEqual(r.body.data, e.envelope.data)) {
        mismatched.push(`delivery ${r.deliveryId} differs from event ${e.id}`);
      }
      if (r.status < 200 || r.status > 299) continue;
      const k = `${d.webhook_id}/${d.event_id}`;
      got.set(k, (got.get(k) ?? 0) + 1);
      if (!firstSeen.has(k)) firstSeen.set(k, i);
    }
    const lost = expected.filter((x) => !got.has(`${x.webhook}/${x.event.id}`)).map((x) => ({ webhook: x.webhook, event: x.event.envelope.event, eventId: x.event.id }));
    let duplicates = 0;
    for (const n of got.values()) duplicates += n - 1;

    // Order per aggregate (an execution's events share its key): receipts against outbox order.
    let outOfOrder = 0;
    const byKey = new Map<string, Array<{ seq: number; at: number }>>();
    for (const x of expected) {
      const at = firstSeen.get(`${x.webhook}/${x.event.id}`);
      if (at === undefined) continue;
      const k = `${x.webhook}/${x.event.schema}/${x.event.key}`;
      byKey.set(k, [...(byKey.get(k) ?? []), { seq: x.event.seq, at }]);
    }
    for (const list of byKey.values()) {
      list.sort((a, b) => a.seq - b.seq);
      for (let i = 1; i < list.length; i++) if (list[i]!.at < list[i - 1]!.at) outOfOrder++;
    }

    // The order the bus handed one aggregate's events to the dispatcher: a delivery row is made when its event
    // is taken in, so a later event (by outbox seq) whose row is strictly older than an earlier event's row
    // came off the bus first. Rows of one intake transaction share their time and count as in order.
    let intakeOutOfOrder = 0;
    let intakePairs = 0;
    const intakeByKey = new Map<string, Array<{ seq: number; at: number }>>();
    for (const d of deliveries) {
      const e = d.event_id ? eventById.get(d.event_id) : undefined;
      if (!e) continue;
      const k = `${d.webhook_id}/${e.schema}/${e.key}`;
      intakeByKey.set(k, [...(intakeByKey.get(k) ?? []), { seq: e.seq, at: new Date(d.created_at).getTime() }]);
    }
    for (const list of intakeByKey.values()) {
      list.sort((a, b) => a.seq - b.seq);
      for (let i = 1; i < list.length; i++) {
        intakePairs++;
        if (list[i]!.at < list[i - 1]!.at) intakeOutOfOrder++;
      }
    }

    // The Kafka bus's parked messages (behind a key held on the retry ladder): none may be left.
    const { rows: holdTables } = await db.query(`select table_name from information_schema.tables where table_schema = 'bus' and table_name in ('kafka_holds', 'kafka_held_messages')`);
    if (holdTables.length === 2) {
      const { rows: holds } = await db.query(`select group_id, key, since from bus.kafka_holds`);
      for (const h of holds) stuck.push({ what: 'kafka hold', id: `${h.group_id} ${h.key}`, detail: `held since ${new Date(h.since).toISOString()}` });
      const { rows: parked } = await db.query(`select group_id, key, count(*)::int as n from bus.kafka_held_messages group by 1, 2`);
      for (const p of parked) stuck.push({ what: 'kafka parked messages', id: `${p.group_id} ${p.key}`, detail: `${p.n} messages` });
    }

    return {
      executions: { total: executions.length, terminal: terminal.length, byStatus, cases, missingResults, duplicateResults, unfinishedResults },
      stuck,
      events: {
        committed: events.length,
        expected: expected.length,
        delivered: expected.length - lost.length,
        lost,
        duplicates,
        earlier,
        phantom,
        mismatched,
        outOfOrder,
        intakeOutOfOrder,
        intakePairs,
        unpublished: unpublished.length,
      },
    };
  } finally {
    await db.end();
  }
}

/** pg-boss jobs of the soak's time that are not finished, and every dead letter; none when the bus is not pg. */
async function busJobs(db: pg.Client, since: Date): Promise<Array<{ id: string; name: string; state: string; started_on: Date | null }>> {
  const { rows: tables } = await db.query(`select 1 from information_schema.tables where table_schema = 'bus' and table_name = 'job'`);
  if (!tables.length) return [];
  const { rows } = await db.query(
    `select id, name, state, started_on from bus.job where created_on >= $1 and (state in ('created', 'retry', 'active') or name like '%\\_\\_dlq') order by created_on`,
    [since],
  );
  return rows;
}

/** True once the work the soak started has settled: nothing running, nothing unpublished, no delivery due. */
export async function settled(databaseUrl: string, orgIds: string[], since: Date): Promise<string | undefined> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect().catch(() => undefined);
  try {
    const checks: Array<[string, string]> = [
      ['executions', `select count(*)::int as n from execution.executions where org_id = any($1) and created_at >= $2 and status not in ('completed','failed','cancelled')`],
      ['discovery sessions', `select count(*)::int as n from discovery.sessions where org_id = any($1) and started_at >= $2 and status in ('running','paused')`],
      ['analyses', `select count(*)::int as n from analysis.analyses where org_id = any($1) and created_at >= $2 and status in ('waiting','pending','running')`],
      ['deliveries', `select count(*)::int as n from webhook.deliveries where org_id = any($1) and created_at >= $2 and status = 'pending'`],
    ];
    const open: string[] = [];
    for (const [what, q] of checks) {
      const { rows } = await db.query(q, [orgIds, since]);
      if (rows[0].n > 0) open.push(`${rows[0].n} ${what}`);
    }
    const { rows: schemas } = await db.query(`select table_schema from information_schema.tables where table_name = 'outbox'`);
    for (const { table_schema: schema } of schemas) {
      const { rows } = await db.query(`select count(*)::int as n from "${schema}".outbox where published_at is null`);
      if (rows[0].n > 0) open.push(`${rows[0].n} unpublished in ${schema}`);
    }
    const { rows: parked } = await db.query(`select to_regclass('bus.kafka_held_messages') is not null as there`);
    if (parked[0].there) {
      const { rows } = await db.query(`select (select count(*)::int from bus.kafka_held_messages) + (select count(*)::int from bus.kafka_holds) as n`);
      if (rows[0].n > 0) open.push(`${rows[0].n} kafka holds and parked messages`);
    }
    const jobs = await busJobs(db, since);
    if (jobs.length) open.push(`${jobs.length} bus jobs (${[...new Set(jobs.map((j) => `${j.name} ${j.state}`))].slice(0, 5).join(', ')})`);
    return open.length ? open.join(', ') : undefined;
  } catch (err) {
    return `database: ${String(err)}`;
  } finally {
    await db.end().catch(() => undefined);
  }
}

/** What the audit needs of a Kafka bus: each group's uncommitted messages and each dead-letter topic's. */
interface KafkaBacklog {
  backlog(): Promise<{ unconsumed: Record<string, number>; deadLetters: Record<string, number> }>;
}

/** What is still open on the Kafka bus, in a line; undefined when nothing is (or on the pg bus). */
async function kafkaOpen(kafka: KafkaBacklog | undefined): Promise<string | undefined> {
  if (!kafka) return undefined;
  try {
    const { unconsumed, deadLetters } = await kafka.backlog();
    const open = [...Object.entries(unconsumed).map(([k, n]) => `${n} unconsumed ${k}`), ...Object.entries(deadLetters).map(([k, n]) => `${n} dead letters ${k}`)];
    return open.length ? `kafka: ${open.join(', ')}` : undefined;
  } catch (err) {
    return `kafka: ${String(err)}`;
  }
}

/** Waits up to `seconds` for started work to settle (database and Kafka), saying what is open every 30 s; what is still open at the end, or undefined. */
export async function settle(databaseUrl: string, kafka: KafkaBacklog | undefined, orgIds: string[], since: Date, seconds: number, say: (line: string) => void): Promise<string | undefined> {
  const isOpen = async () => [await settled(databaseUrl, orgIds, since), await kafkaOpen(kafka)].filter(Boolean).join(', ') || undefined;
  const until = Date.now() + seconds * 1000;
  let open = await isOpen();
  let told = Date.now();
  while (open && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 3000));
    open = await isOpen();
    if (open && Date.now() - told > 30_000) {
      say(`still open: ${open}`);
      told = Date.now();
    }
  }
  return open;
}

/** The Kafka bus in the audit: nothing left uncommitted by a consumer group, no dead letter. */
export async function auditKafka(kafka: KafkaBacklog | undefined, stuck: AuditResult['stuck']): Promise<void> {
  if (!kafka) return;
  const { unconsumed, deadLetters } = await kafka.backlog();
  for (const [k, n] of Object.entries(unconsumed)) stuck.push({ what: 'kafka backlog', id: k, detail: `${n} messages not committed` });
  for (const [k, n] of Object.entries(deadLetters)) stuck.push({ what: 'kafka dead letters', id: k, detail: `${n} messages` });
}
