import { createSecretKey, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { EgressPolicy } from '@assay/egress';
import type { Logger } from '@assay/logger';
import { inSpanFrom } from '@assay/telemetry';
import type { WebhookDatabase } from '../db/database.js';
import { purgeExpiredDeliveries } from '../deliveries/deliveries.repository.js';
import {
  disableWebhookWithNotice,
  findOrgPlans,
  findRateCounters,
  findWebhookTargets,
  limitIdleTransaction,
  lockRateKeys,
  purgeRateCounters,
  putBackUnsent,
  recordOutcomes,
  requeueDeliveriesAt,
  saveRateCounters,
  takeDueDeliveries,
  type Claimed,
  type Outcome,
} from './dispatch.repository.js';
import type { SecretBox } from '../shared/secrets.js';
import { SYSTEM_CLOCK, type Clock } from '../shared/clock.js';
import { PLAN_LIMITS, RATE_LIMITS, RESPONSE_TIMEOUT_MS } from '../shared/plans.js';
import { nextAttemptAt, parseRetryAfter } from '../shared/retry.js';
import { endpointOf, Sender, type Endpoint, type SendResult } from './sender.js';
import { signDelivery } from './signing.js';
import type { DisabledWebhook } from '../notify/mailer.js';

type Db = Kysely<WebhookDatabase>;

export interface DispatcherOptions {
  db: Db;
  secrets: SecretBox;
  logger: Logger;
  clock?: Clock;
  /** Deliveries in flight at once (default 64). */
  concurrency?: number;
  /**
   * How long a batch keeps starting sends (default 30 s). Its rows stay taken
   * until it has recorded them; rows whose turn comes later go back unsent.
   */
  batchSeconds?: number;
  rateLimitsEnabled?: boolean;
  /**
   * Idle poll interval (default 1000 ms). `kick()` wakes the loop at once (this process made
   * deliveries); the poll finds retries (a minute or more apart), deliveries a rate limit held
   * back (due at the next window, which a second late does not change) and other replicas' leftovers.
   */
  pollMs?: number;
  /** Answer deadline (default 5 s, the spec's). */
  responseTimeoutMs?: number;
  /** What deliveries may connect to: checked on the address each connection is made to. */
  egress: EgressPolicy;
  /** Called once a webhook this process disabled is committed (the administrators' e-mail); never awaited by a batch. */
  onWebhookDisabled?: (w: DisabledWebhook) => Promise<unknown>;
}

/** Where a batch's deliveries of one webhook go, and the secrets that sign them (or why none can). */
type Target = { endpoint: Endpoint; secrets: KeyObject[] } | { error: string };

interface Result {
  delivery: Claimed;
  outcome: Outcome;
}

/** Rows one batch claims. */
const BATCH_SIZE = 256;
/** Batches one process holds at once: the next is claimed while the last sends of the one before are in flight. */
const OPEN_BATCHES = 3;
const floorTo = (d: Date, ms: number) => new Date(Math.floor(d.getTime() / ms) * ms);

/** A first-in first-out counting semaphore: the sends of every open batch share `concurrency` slots. */
class Slots {
  private readonly waiting: Array<() => void> = [];
  constructor(private free: number) {}
  acquire(): Promise<void> | undefined {
    if (this.free > 0) {
      this.free--;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * A counter row is (key, window start). The minute counters have keys of
 * their own (`<key>|minute`): the first minute of a UTC day starts when the
 * day does, and under one key its minute and day counters were the same row
 * (a batch claimed in that minute failed on its own upsert, and the day's
 * count restarted). Day counters keep the plain key.
 */
const MINUTE_SUFFIX = '|minute';
const minuteCounterKey = (key: string) => `${key}${MINUTE_SUFFIX}`;

/**
 * Sends due deliveries. A batch is one transaction: it takes due rows off
 * `delivery_queue` (a delete that skips rows other transactions hold), sends
 * them, writes every result and commits. Replicas skip each other's rows, so
 * no delivery goes out twice at the same time; a process killed at any point
 * ends its transaction, the delete is undone, and another process sends the
 * rows (at-least-once). Taking a row writes no lease; recording it is one
 * update of the delivery row that Postgres keeps on its page (HOT).
 */
export class Dispatcher {
  private readonly clock: Clock;
  private readonly sender: Sender;
  private readonly slots: Slots;
  private readonly batchMs: number;
  /** Rows claimed but not started below which the next batch is claimed. */
  private readonly lowWater: number;
  private stopped = true;
  /** Set by stop(): open batches send nothing more. */
  private stopping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly open = new Set<Promise<unknown>>();
  private wake: Array<() => void> = [];
  private lastPurge = 0;
  /** Notices under way: stop() waits for them. */
  private readonly notices = new Set<Promise<unknown>>();

  constructor(private readonly o: DispatcherOptions) {
    this.clock = o.clock ?? SYSTEM_CLOCK;
    this.sender = new Sender(o.egress, o.responseTimeoutMs);
    this.slots = new Slots(Math.max(1, o.concurrency ?? 64));
    this.lowWater = 2 * Math.max(1, o.concurrency ?? 64);
    this.batchMs = (o.batchSeconds ?? 30) * 1000;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = false;
    this.loopDone = this.loop();
  }

  /** Wakes an idle loop: new deliveries are due now. */
  kick(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const w of waiting) w();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping = true;
    this.kick();
    await this.loopDone;
    await Promise.all(this.open);
    await Promise.all(this.notices);
    await this.sender.close();
  }

  /** Opens batches one after another: a new one once the last has few rows left to start, at most OPEN_BATCHES at once. */
  private async loop(): Promise<void> {
    while (!this.stopped) {
      while (this.open.size >= OPEN_BATCHES) await Promise.race(this.open);
      let claimed = 0;
      let started!: () => void;
      const nearlyStarted = new Promise<void>((resolve) => (started = resolve));
      const batch = this.runBatch((n) => {
        claimed = n;
        started();
      })
        .catch((err: unknown) => this.o.logger.warn({ err }, 'webhook dispatch batch failed; its deliveries go out again'))
        .finally(() => {
          started();
          this.open.delete(batch);
        });
      this.open.add(batch);
      await nearlyStarted;
      try {
        await this.maybePurge();
      } catch (err) {
        this.o.logger.warn({ err }, 'webhook delivery purge failed; retrying');
      }
      if (claimed === 0 && !this.stopped) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.o.pollMs ?? 1000);
      this.wake.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Claims one batch of due deliveries, sends them, records the results; returns how many were claimed. */
  runOnce(): Promise<number> {
    return this.runBatch();
  }

  /** Runs batches until nothing is due (tests and benchmarks). */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  /**
   * One batch in one transaction. `onStarted(n)` is called (maybe more than
   * once) when few of its n claimed rows are left to start, the moment to claim
   * the next batch (n = 0: nothing was due).
   */
  private async runBatch(onStarted?: (claimed: number) => void): Promise<number> {
    const disabled: DisabledWebhook[] = [];
    let claimed = 0;
    await this.o.db.transaction().execute(async (trx) => {
      // A process that stops answering (not killed: frozen) loses its locks after this long.
      const idleLimit = this.batchMs + (this.o.responseTimeoutMs ?? RESPONSE_TIMEOUT_MS) + 60_000;
      await limitIdleTransaction(trx, idleLimit);
      const now = this.clock.now();
      const rows = await this.claim(trx, now);
      claimed = rows.length;
      if (rows.length === 0) return;
      const targets = await this.targets(trx, rows, now);
      const { results, unsent } = await this.sendAll(rows, targets, now.getTime() + this.batchMs, () => onStarted?.(rows.length));
      if (unsent.length) await putBackUnsent(trx, unsent);
      if (results.length) await this.record(trx, results, disabled);
    });
    onStarted?.(claimed);
    // After the commit: a rolled-back disable e-mails no one.
    for (const w of disabled) {
      const notice = this.o.onWebhookDisabled?.(w).catch((err: unknown) => this.o.logger.warn({ err, webhook: w.webhookId }, 'webhook disabled: notice failed'));
      if (!notice) continue;
      this.notices.add(notice);
      void notice.finally(() => this.notices.delete(notice));
    }
    return claimed;
  }

  /**
   * Sends the batch's rows through the shared slots, in order. A row whose
   * turn comes after `deadline` (or once stop() was called) is not sent: it stays due,
   * with no attempt counted, and goes out in a later batch.
   */
  private async sendAll(rows: Claimed[], targets: Map<string, Target>, deadline: number, onStarted: () => void): Promise<{ results: Result[]; unsent: Claimed[] }> {
    const results: Result[] = [];
    const unsent: Claimed[] = [];
    const sends: Promise<void>[] = [];
    for (let i = 0; i < rows.length; i++) {
      // Few rows left to start: time to claim the next batch, so the slots never wait for a claim.
      if (rows.length - i <= this.lowWater) onStarted();
      const d = rows[i]!;
      await this.slots.acquire();
      const at = this.clock.now();
      if (this.stopping || at.getTime() > deadline) {
        this.slots.release();
        unsent.push(d);
        continue;
      }
      sends.push(
        this.sendOne(d, targets.get(d.webhook_id)!, at).then((outcome) => {
          results.push({ delivery: d, outcome });
          this.slots.release();
        }),
      );
    }
    onStarted();
    await Promise.all(sends);
    return { results, unsent };
  }

  private sendOne(d: Claimed, target: Target, at: Date): Promise<Outcome> {
    // Each attempt is a span of the trace that made the delivery (the event's, or the test request's).
    const attributes = { 'assay.delivery.id': d.id, 'assay.webhook.id': d.webhook_id, 'assay.event': d.event, 'assay.delivery.attempt': d.attempt_count + 1 };
    return inSpanFrom(d.traceparent, 'webhook delivery', 'internal', attributes, async () => {
      // Only this delivery fails (and retries): the rest of the batch is recorded as usual.
      if ('error' in target) return this.outcomeOf(d, { statusCode: null, body: null, responseTimeMs: 0, error: target.error, retryAfter: undefined }, at);
      const headers = signDelivery({ deliveryId: d.id, event: d.event, body: d.body, secrets: target.secrets, at });
      return this.outcomeOf(d, await this.sender.send(target.endpoint, headers, d.body), at);
    });
  }

  private outcomeOf(d: Claimed, r: SendResult, at: Date): Outcome {
    const attempt = d.attempt_count + 1;
    const code = r.statusCode;
    let status: Outcome['status'] = 'failed';
    let next: Date | null = null;
    if (code !== null && code >= 200 && code < 300) status = 'delivered';
    else if (code !== 410) {
      const retryAfter = code === 429 || code === 503 ? parseRetryAfter(r.retryAfter, at) : undefined;
      next = nextAttemptAt(this.clock.now(), attempt, d.max_attempts, retryAfter);
      if (next) status = 'pending';
    }
    return {
      id: d.id,
      status,
      attempt_count: attempt,
      next_attempt_at: next ? next.toISOString() : null,
      status_code: code,
      response_body: r.body,
      response_time_ms: r.responseTimeMs,
      error: r.error,
      completed_at: status === 'pending' ? null : this.clock.now().toISOString(),
      at: at.toISOString(),
    };
  }

  /**
   * Takes due rows of enabled webhooks off the queue, skipping rows other
   * transactions hold. The delete commits with the batch's results, or is
   * undone if the process dies first. Rate-limited rows go back, due later.
   */
  private async claim(trx: Db, now: Date): Promise<Claimed[]> {
    const take = () => takeDueDeliveries(trx, now, BATCH_SIZE);
    if (this.o.rateLimitsEnabled === false) return take();
    // Rows held back by a rate limit go back due later; look again until some may go or none are due.
    for (;;) {
      const taken = await take();
      if (taken.length === 0) return [];
      const { allowed, waits } = await this.o.db.transaction().execute((counters) => this.applyRateLimits(counters, taken, now));
      for (const [until, ids] of waits) {
        await requeueDeliveriesAt(trx, ids, new Date(until));
      }
      if (allowed.length > 0) return allowed;
    }
  }

  /** The URL and opened secrets of each webhook in the batch. */
  private async targets(trx: Db, rows: Claimed[], now: Date): Promise<Map<string, Target>> {
    const hooks = await findWebhookTargets(trx, [...new Set(rows.map((r) => r.webhook_id))]);
    const out = new Map<string, Target>();
    for (const w of hooks) {
      try {
        const secrets = [this.o.secrets.open(w.secret_enc)];
        if (w.previous_secret_enc && w.previous_secret_expires_at && w.previous_secret_expires_at > now) secrets.push(this.o.secrets.open(w.previous_secret_enc));
        // Imported once per batch, not once per signature.
        out.set(w.id, { endpoint: endpointOf(w.url), secrets: secrets.map((k) => createSecretKey(Buffer.from(k, 'utf8'))) });
      } catch {
        out.set(w.id, { error: 'The webhook secret cannot be decrypted (was WEBHOOK_SECRET_KEY changed?)' });
      }
    }
    return out;
  }

  /**
   * Per webhook 100/min and 10,000/day, per organization 1,000/min and
   * 100,000/day (or the plan's events per day, when lower). Deliveries over
   * a limit are not dropped: they wait for the window that limited them to end.
   * Counters are fixed windows, read and written in a short transaction of
   * their own under advisory locks, so replicas count together (a process that
   * dies after counting has counted a batch it did not send: the error is on
   * the safe side).
   */
  private async applyRateLimits(trx: Db, rows: Claimed[], now: Date): Promise<{ allowed: Claimed[]; waits: Map<number, string[]> }> {
    const minute = floorTo(now, 60_000);
    const day = floorTo(now, 86_400_000);
    const keys = [...new Set(rows.flatMap((r) => [`w:${r.webhook_id}`, `o:${r.org_id}`]))].sort();
    await lockRateKeys(trx, keys);
    const counters = await findRateCounters(trx, [...keys, ...keys.map(minuteCounterKey)], [minute, day]);
    const counts = new Map<string, number>();
    for (const c of counters) {
      if (c.key.endsWith(MINUTE_SUFFIX) && c.window_start.getTime() === minute.getTime()) counts.set(`${c.key.slice(0, -MINUTE_SUFFIX.length)}|m`, c.count);
      else if (!c.key.endsWith(MINUTE_SUFFIX) && c.window_start.getTime() === day.getTime()) counts.set(`${c.key}|d`, c.count);
    }
    const plans = await findOrgPlans(trx, [...new Set(rows.map((r) => r.org_id))]);
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
    if (allowed.length) {
      const values = keys.flatMap((key) => [
        { key: minuteCounterKey(key), window_start: minute, count: counts.get(`${key}|m`) ?? 0 },
        { key, window_start: day, count: counts.get(`${key}|d`) ?? 0 },
      ]);
      await saveRateCounters(trx, values);
    }
    return { allowed, waits };
  }

  /**
   * Writes the batch's results in its transaction (`recordOutcomes`), then
   * disables the webhooks whose delivery failed for good.
   */
  private async record(trx: Db, results: Result[], disabled: DisabledWebhook[]): Promise<void> {
    await recordOutcomes(trx, results.map((r) => r.outcome));
    const now = this.clock.now();
    // In webhook order, so two batches disabling the same webhooks cannot deadlock.
    const failed = results.filter((r) => r.outcome.status === 'failed').sort((a, b) => (a.delivery.webhook_id < b.delivery.webhook_id ? -1 : 1));
    for (const { delivery, outcome } of failed) {
      const gone = outcome.status_code === 410;
      // A failed test event disables nothing; a 410 Gone always does.
      if (delivery.test && !gone) continue;
      const reason = gone
        ? `The endpoint answered 410 Gone to delivery ${delivery.id}`
        : `Delivery ${delivery.id} (${delivery.event}) failed after ${outcome.attempt_count} attempts: ${outcome.error ?? 'failure'}`;
      const w = await this.disableWebhook(trx, delivery, reason, now);
      if (w) disabled.push(w);
    }
  }

  private async disableWebhook(trx: Db, delivery: Claimed, reason: string, now: Date): Promise<DisabledWebhook | undefined> {
    // With the administrators' notification; the log line carries no secret and no body.
    const disabled = await disableWebhookWithNotice(trx, { orgId: delivery.org_id, webhookId: delivery.webhook_id }, reason, now);
    if (!disabled) return undefined;
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
    await purgeRateCounters(this.o.db, new Date(now.getTime() - 2 * 86_400_000));
    return n;
  }
}

