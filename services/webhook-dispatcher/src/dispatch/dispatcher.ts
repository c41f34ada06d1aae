import { sql, type Kysely } from 'kysely';
import type { Logger } from '@assay/logger';
import type { Plan } from '@assay/principal';
import type { WebhookDatabase } from '../db/database.js';
import { purgeExpiredDeliveries } from '../deliveries/deliveries.repository.js';
import type { SecretBox } from '../webhooks/secrets.js';
import { SYSTEM_CLOCK, type Clock } from '../shared/clock.js';
import { PLAN_LIMITS, RATE_LIMITS, RESPONSE_TIMEOUT_MS } from '../shared/plans.js';
import { nextAttemptAt, parseRetryAfter } from '../shared/retry.js';
import { Sender, type SendResult } from './sender.js';
import { signDelivery } from './signing.js';
import type { DisabledWebhook } from '../notify/mailer.js';

type Db = Kysely<WebhookDatabase>;

export interface DispatcherOptions {
  db: Db;
  secrets: SecretBox;
  logger: Logger;
  /** Names this process in leases. */
  workerId: string;
  clock?: Clock;
  /** Deliveries in flight at once (default 64). */
  concurrency?: number;
  leaseSeconds?: number;
  rateLimitsEnabled?: boolean;
  /** Idle poll interval (default 250 ms); `kick()` wakes the loop at once. */
  pollMs?: number;
  /** Answer deadline (default 5 s, the spec's). */
  responseTimeoutMs?: number;
  /** Called once a webhook this process disabled is committed (the administrators' e-mail); never awaited by a lane. */
  onWebhookDisabled?: (w: DisabledWebhook) => Promise<unknown>;
}

interface Claimed {
  id: string;
  org_id: string;
  webhook_id: string;
  event: string;
  body: string;
  test: boolean;
  attempt_count: number;
  max_attempts: number;
  url: string;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
}

interface Outcome {
  id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  status_code: number | null;
  response_body: string | null;
  response_time_ms: number;
  error: string | null;
  completed_at: string | null;
  at: string;
}

const LANES = 4;
const BATCH_SIZE = 400;
const floorTo = (d: Date, ms: number) => new Date(Math.floor(d.getTime() / ms) * ms);

/**
 * Sends due deliveries. Rows are claimed with `FOR UPDATE SKIP LOCKED` and a
 * lease (owner + expiry), so replicas share the work and never send one
 * delivery at the same time; a process killed mid-batch leaves leases that
 * expire, and the deliveries go out again (at-least-once). Results of a batch
 * are written in one transaction.
 */
export class Dispatcher {
  private readonly clock: Clock;
  private readonly sender: Sender;
  private readonly batchSize: number;
  /** Requests one lane has in flight: the lanes together stay within `concurrency`. */
  private readonly senders: number;
  private stopped = true;
  private lanes: Promise<void>[] = [];
  private wake: Array<() => void> = [];
  private lastPurge = 0;
  /** Notices under way: stop() waits for them. */
  private readonly notices = new Set<Promise<unknown>>();

  constructor(private readonly o: DispatcherOptions) {
    this.clock = o.clock ?? SYSTEM_CLOCK;
    this.sender = new Sender(o.responseTimeoutMs);
    this.batchSize = BATCH_SIZE;
    this.senders = Math.max(1, Math.ceil((o.concurrency ?? 64) / LANES));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.lanes = Array.from({ length: LANES }, () => this.lane());
  }

  /** Wakes idle lanes: new deliveries are due now. */
  kick(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const w of waiting) w();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.kick();
    await Promise.all(this.lanes);
    await Promise.all(this.notices);
    await this.sender.close();
  }

  private async lane(): Promise<void> {
    while (!this.stopped) {
      let sent = 0;
      try {
        sent = await this.runOnce();
        await this.maybePurge();
      } catch (err) {
        this.o.logger.warn({ err }, 'webhook dispatch round failed; retrying');
      }
      if (sent === 0 && !this.stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.o.pollMs ?? 250);
          this.wake.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    }
  }

  /** Claims one batch of due deliveries, sends them, records the results; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const { rows: batch, leaseUntil } = await this.claim();
    if (batch.length === 0) return 0;
    // A send must end (answer or timeout) while the lease holds, or another
    // process could take the row and send it at the same time: rows whose turn
    // comes too late go back unsent, with no attempt counted.
    const lastStart = leaseUntil.getTime() - (this.o.responseTimeoutMs ?? RESPONSE_TIMEOUT_MS) - 1000;
    const released: string[] = [];
    const keys = new Map<string, string[]>();
    const now = () => this.clock.now();
    const outcomes: Array<{ delivery: Claimed; outcome: Outcome }> = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(this.senders, batch.length) }, async () => {
        while (next < batch.length) {
          const d = batch[next++]!;
          const at = now();
          if (at.getTime() > lastStart) {
            released.push(d.id);
            continue;
          }
          let secrets = keys.get(d.webhook_id);
          try {
            if (!secrets) {
              secrets = [this.o.secrets.open(d.secret_enc)];
              if (d.previous_secret_enc && d.previous_secret_expires_at && d.previous_secret_expires_at > at) secrets.push(this.o.secrets.open(d.previous_secret_enc));
              keys.set(d.webhook_id, secrets);
            }
          } catch {
            // Only this delivery fails (and retries): the rest of the batch is recorded as usual.
            const error = 'The webhook secret cannot be decrypted (was WEBHOOK_SECRET_KEY changed?)';
            outcomes.push({ delivery: d, outcome: this.outcomeOf(d, { statusCode: null, body: null, responseTimeMs: 0, error, retryAfter: undefined }, at) });
            continue;
          }
          const headers = signDelivery({ deliveryId: d.id, event: d.event, body: d.body, secrets, at });
          const result = await this.sender.send(d.url, headers, d.body);
          outcomes.push({ delivery: d, outcome: this.outcomeOf(d, result, at) });
        }
      }),
    );
    await this.record(outcomes, released);
    return batch.length;
  }

  /** Runs rounds until nothing is due (tests and benchmarks). */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  private outcomeOf(d: Claimed, r: SendResult, at: Date): Outcome {
    const attempt = d.attempt_count + 1;
    const base = { id: d.id, attempt_count: attempt, status_code: r.statusCode, response_body: r.body, response_time_ms: r.responseTimeMs, error: r.error, at: at.toISOString() };
    const done = this.clock.now().toISOString();
    if (r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300) return { ...base, status: 'delivered', next_attempt_at: null, completed_at: done };
    if (r.statusCode === 410) return { ...base, status: 'failed', next_attempt_at: null, completed_at: done };
    const retryAfter = r.statusCode === 429 || r.statusCode === 503 ? parseRetryAfter(r.retryAfter, at) : undefined;
    const next = nextAttemptAt(this.clock.now(), attempt, d.max_attempts, retryAfter);
    return next ? { ...base, status: 'pending', next_attempt_at: next.toISOString(), completed_at: null } : { ...base, status: 'failed', next_attempt_at: null, completed_at: done };
  }

  private async claim(): Promise<{ rows: Claimed[]; leaseUntil: Date }> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + (this.o.leaseSeconds ?? 30) * 1000);
    // One statement picks due rows no one holds and leases them to this process.
    const lease = async (db: Db) =>
      (
        await sql<Claimed>`
          update deliveries d set lease_owner = ${this.o.workerId}, lease_until = ${leaseUntil}
          from webhooks w
          where w.id = d.webhook_id and d.id in (
            select d2.id from deliveries d2 join webhooks w2 on w2.id = d2.webhook_id
            where d2.status = 'pending' and d2.next_attempt_at <= ${now}
              and (d2.lease_until is null or d2.lease_until < ${now}) and w2.enabled
            order by d2.next_attempt_at
            limit ${this.batchSize}
            for update of d2 skip locked)
          returning d.id, d.org_id, d.webhook_id, d.event, d.body, d.test, d.attempt_count, d.max_attempts,
                    w.url, w.secret_enc, w.previous_secret_enc, w.previous_secret_expires_at`.execute(db)
      ).rows;
    if (this.o.rateLimitsEnabled === false) return { rows: await lease(this.o.db), leaseUntil };
    const rows = await this.o.db.transaction().execute(async (trx) => {
      // Rows held back by a rate limit move to later; look again until some may go or none are due.
      for (;;) {
        const leased = await lease(trx);
        if (leased.length === 0) return [];
        const allowed = await this.applyRateLimits(trx, leased, now);
        if (allowed.length > 0) return allowed;
      }
    });
    return { rows, leaseUntil };
  }

  /**
   * Per webhook 100/min and 10,000/day, per organization 1,000/min and
   * 100,000/day (or the plan's events per day, when lower). Deliveries over
   * a limit are not dropped: they wait for the window that limited them to end.
   * Counters are fixed windows, read and written under advisory locks so
   * replicas count together.
   */
  private async applyRateLimits(trx: Db, rows: Claimed[], now: Date): Promise<Claimed[]> {
    const minute = floorTo(now, 60_000);
    const day = floorTo(now, 86_400_000);
    const keys = [...new Set(rows.flatMap((r) => [`w:${r.webhook_id}`, `o:${r.org_id}`]))].sort();
    for (const key of keys) await sql`select pg_advisory_xact_lock(hashtext(${`assay.webhook.rate.${key}`}))`.execute(trx);
    const counters = await trx
      .selectFrom('rate_counters')
      .select(['key', 'window_start', 'count'])
      .where('key', 'in', keys)
      .where('window_start', 'in', [minute, day])
      .execute();
    const counts = new Map(counters.map((c) => [`${c.key}|${c.window_start.getTime() === minute.getTime() ? 'm' : 'd'}`, c.count]));
    const plans = new Map(
      (await trx.selectFrom('org_plans').select(['org_id', 'plan']).where('org_id', 'in', [...new Set(rows.map((r) => r.org_id))]).execute()).map((p) => [p.org_id, p.plan as Plan]),
    );
    const allowed: Claimed[] = [];
    const waits = new Map<number, string[]>();
    const nextMinute = minute.getTime() + 60_000;
    const nextDay = day.getTime() + 86_400_000;
    for (const row of rows) {
      const w = `w:${row.webhook_id}`;
      const o = `o:${row.org_id}`;
      const orgPerDay = Math.min(RATE_LIMITS.orgPerDay, PLAN_LIMITS[plans.get(row.org_id) ?? 'starter'].eventsPerDay);
      const get = (k: string) => counts.get(k) ?? 0;
      let until: number | undefined;
      if (get(`${w}|d`) >= RATE_LIMITS.webhookPerDay || get(`${o}|d`) >= orgPerDay) until = nextDay;
      else if (get(`${w}|m`) >= RATE_LIMITS.webhookPerMinute || get(`${o}|m`) >= RATE_LIMITS.orgPerMinute) until = nextMinute;
      if (until !== undefined) {
        waits.set(until, [...(waits.get(until) ?? []), row.id]);
        continue;
      }
      for (const k of [`${w}|m`, `${w}|d`, `${o}|m`, `${o}|d`]) counts.set(k, get(k) + 1);
      allowed.push(row);
    }
    for (const [until, ids] of waits) {
      await trx.updateTable('deliveries').set({ next_attempt_at: new Date(until), lease_owner: null, lease_until: null }).where('id', 'in', ids).execute();
    }
    if (allowed.length) {
      const values = keys.flatMap((key) => [
        { key, window_start: minute, count: counts.get(`${key}|m`) ?? 0 },
        { key, window_start: day, count: counts.get(`${key}|d`) ?? 0 },
      ]);
      await trx
        .insertInto('rate_counters')
        .values(values)
        .onConflict((oc) => oc.columns(['key', 'window_start']).doUpdateSet((eb) => ({ count: eb.ref('excluded.count') })))
        .execute();
    }
    return allowed;
  }

  private async record(results: Array<{ delivery: Claimed; outcome: Outcome }>, released: string[]): Promise<void> {
    const outcomes = results.map((r) => r.outcome);
    const disabled: DisabledWebhook[] = [];
    await this.o.db.transaction().execute(async (trx) => {
      if (released.length) {
        await trx.updateTable('deliveries').set({ lease_owner: null, lease_until: null }).where('id', 'in', released).where('lease_owner', '=', this.o.workerId).execute();
      }
      // One statement: results land only on rows this process still leases, and
      // an attempt is logged only with its row (a webhook deleted meanwhile takes both).
      await sql`
        with v as (
          select * from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb) as v(
            id uuid, status text, attempt_count int, next_attempt_at timestamptz, status_code int,
            response_body text, response_time_ms int, error text, completed_at timestamptz, at timestamptz)
        ), updated as (
          update deliveries d set
            status = v.status, attempt_count = v.attempt_count, next_attempt_at = v.next_attempt_at,
            status_code = v.status_code, response_body = v.response_body, response_time_ms = v.response_time_ms,
            error = v.error, completed_at = v.completed_at, lease_owner = null, lease_until = null
          from v
          where d.id = v.id and d.lease_owner = ${this.o.workerId}
          returning d.id
        )
        insert into delivery_attempts (delivery_id, attempt, at, status_code, response_time_ms, error)
        select v.id, v.attempt_count, v.at, v.status_code, v.response_time_ms, v.error
        from v join updated u on u.id = v.id
        on conflict do nothing`.execute(trx);
      const now = this.clock.now();
      for (const { delivery, outcome } of results) {
        if (outcome.status !== 'failed') continue;
        const gone = outcome.status_code === 410;
        // A failed test event disables nothing; a 410 Gone always does.
        if (delivery.test && !gone) continue;
        const reason = gone
          ? `The endpoint answered 410 Gone to delivery ${delivery.id}`
          : `Delivery ${delivery.id} (${delivery.event}) failed after ${outcome.attempt_count} attempts: ${outcome.error ?? 'failure'}`;
        const w = await this.disableWebhook(trx, delivery, reason, now);
        if (w) disabled.push(w);
      }
    });
    // After the commit: a rolled-back disable e-mails no one.
    for (const w of disabled) {
      const notice = this.o.onWebhookDisabled?.(w).catch((err: unknown) => this.o.logger.warn({ err, webhook: w.webhookId }, 'webhook disabled: notice failed'));
      if (!notice) continue;
      this.notices.add(notice);
      void notice.finally(() => this.notices.delete(notice));
    }
  }

  private async disableWebhook(trx: Db, delivery: Claimed, reason: string, now: Date): Promise<DisabledWebhook | undefined> {
    const disabled = await trx
      .updateTable('webhooks')
      .set({ enabled: false, disabled_reason: reason, disabled_at: now, updated_at: now })
      .where('id', '=', delivery.webhook_id)
      .where('enabled', '=', true)
      .returning(['id', 'name', 'url'])
      .executeTakeFirst();
    if (!disabled) return undefined;
    // The administrators' notification; the log line carries no secret and no body.
    await trx
      .insertInto('notifications')
      .values({ org_id: delivery.org_id, webhook_id: delivery.webhook_id, kind: 'webhook.disabled', message: `Webhook "${disabled.name}" (${disabled.url}) was disabled. ${reason}`, created_at: now })
      .execute();
    this.o.logger.warn({ webhook: delivery.webhook_id, org: delivery.org_id, reason }, 'webhook disabled');
    return { orgId: delivery.org_id, webhookId: delivery.webhook_id, name: disabled.name, url: disabled.url, reason };
  }

  private async maybePurge(): Promise<void> {
    if (this.clock.now().getTime() - this.lastPurge < 60_000) return;
    this.lastPurge = this.clock.now().getTime();
    await this.purge();
  }

  /** Deletes finished deliveries past their history period and old rate windows; returns the deliveries deleted. */
  async purge(): Promise<number> {
    const now = this.clock.now();
    const n = await purgeExpiredDeliveries(this.o.db, now);
    await this.o.db.deleteFrom('rate_counters').where('window_start', '<', new Date(now.getTime() - 2 * 86_400_000)).execute();
    return n;
  }
}

