import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { COMMAND_TOPICS, type Topic } from '@assay/contracts';
import type { Logger } from '@assay/logger';
import { handleInSpan } from './tracing.js';
import { MAX_ATTEMPTS, wantedEvents, type Bus, type BusHealth, type BusMessage, type SubscribeOptions, type Subscription, type EventEnvelope } from './types.js';

export interface PgBusOptions {
  connectionString: string;
  /** Schema of pg-boss's tables (default `bus`). */
  schema?: string;
  logger: Logger;
  /**
   * How often idle workers poll, in seconds (pg-boss minimum 0.5; default 10). A publish wakes the
   * subscribed workers of every process at once (NOTIFY), a failed job wakes its worker when its retry
   * comes due, and while the LISTEN connection is down the process wakes its workers every 2 s itself:
   * polling only covers what nothing woke (a job whose holder died, expired by pg-boss's maintenance).
   */
  pollingIntervalSeconds?: number;
  /** Attempts per message before it goes to the group's dead-letter queue (default 25). */
  maxAttempts?: number;
  /**
   * A broadcast queue of another process holding a message older than this many seconds belongs to a
   * process that died without closing it (SIGKILL, OOM): it is removed (default 60; a live process
   * fetches within its polling interval).
   */
  orphanBroadcastSeconds?: number;
  /**
   * A job a handler holds is kept this many seconds past its last heartbeat (one every third of it), so
   * the jobs of a process killed while holding them expire this long after its last beat and pg-boss's
   * maintenance (every `maintenanceIntervalSeconds`) hands them out again. Defaults: 60 and 30.
   */
  holdSeconds?: number;
  maintenanceIntervalSeconds?: number;
}

/** A message given up after `maxAttempts`, as the dead-letter queue keeps it. */
export interface DeadLetter {
  key: string;
  value: EventEnvelope;
  error: string;
  attempts: number;
  topic: string;
  group: string;
}

/**
 * pg-boss 10's worker loop calls `complete()` and `fail()` after each batch without awaiting or
 * catching them (`manager.js`, `onFetch`). When Postgres is unreachable at that moment the rejection
 * is unhandled and Node ends the process: the runner and the dispatcher died so on a Postgres restart
 * (found by `make soak`). The two are wrapped, once per process, so that a failed call is retried in
 * the background every second for a minute (the job stays active meanwhile; past that it expires and
 * comes again: at-least-once) and its rejection counts as handled. Callers that await still get it.
 * Not pretty, but the only hook there is: the manager is a private field of PgBoss.
 */
let completionLogger: Logger | undefined;
const COMPLETION_RETRIES = 60;
function guardJobCompletion(): void {
  const Manager = createRequire(import.meta.url)('pg-boss/src/manager.js') as { prototype: Record<string, unknown> & { __assayGuarded?: boolean } };
  if (Manager.prototype.__assayGuarded) return;
  Manager.prototype.__assayGuarded = true;
  for (const name of ['complete', 'fail'] as const) {
    const original = Manager.prototype[name] as (this: unknown, ...args: unknown[]) => Promise<unknown>;
    const guarded = function (this: unknown, ...args: unknown[]) {
      const attempt = (left: number): Promise<unknown> => {
        const result = original.apply(this, args);
        result.catch((err: unknown) => {
          if (left <= 0) {
            completionLogger?.error({ err, queue: args[0] }, `bus: could not ${name} a job; it comes again once it expires`);
            return;
          }
          setTimeout(() => void attempt(left - 1), 1000).unref();
        });
        return result;
      };
      return attempt(COMPLETION_RETRIES);
    };
    // PgBoss hands a manager's functions on by their names (index.js, #promoteFunctions): keep it, or
    // every PgBoss made after this one would lack complete() and fail().
    Object.defineProperty(guarded, 'name', { value: name });
    Manager.prototype[name] = guarded;
  }
}

/** A message as a job carries it. */
interface Carried {
  key: string;
  value: EventEnvelope;
  traceparent?: string;
}
/** A job's data: one message, or (events) several published together. */
type JobData = Carried | { batch: Carried[] };
const messagesOf = (data: JobData): Carried[] => ('batch' in data ? data.batch : [data]);
const carry = (m: BusMessage): Carried => ({ key: m.key, value: m.value, ...(m.traceparent ? { traceparent: m.traceparent } : {}) });

/**
 * Commands are work shared out one by one (an execution starts on whichever runner has a free slot):
 * one job per message. Events fan out to idempotent consumers: the messages of one publish travel
 * together, up to this many per job, so the bus costs a job insert, fetch and completion per batch
 * rather than per event (the webhook intake bench: pg-boss's per-job cost was most of it).
 */
export const MESSAGES_PER_JOB = 500;

/**
 * Runs `fn` over `items` in order, at most `limit` at once, starting no new one once `stop()` is true.
 * Returns each item's outcome (undefined: never started).
 */
async function runLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>, stop: () => boolean): Promise<Array<PromiseSettledResult<void> | undefined>> {
  const results: Array<PromiseSettledResult<void> | undefined> = new Array(items.length).fill(undefined);
  let next = 0;
  const lane = async () => {
    while (next < items.length && !stop()) {
      const i = next++;
      try {
        await fn(items[i]!);
        results[i] = { status: 'fulfilled', value: undefined };
      } catch (reason) {
        results[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}

/**
 * Idle workers poll this often (seconds). Publishes, retries coming due and a lost LISTEN connection
 * wake them (see PgBusOptions.pollingIntervalSeconds): at 2 s the polls of a stack's workers were about
 * 14 fetches a second, most of a quiet stack's bus work (see libs/bus README).
 */
const DEFAULT_POLLING_SECONDS = 10;
/** While the LISTEN connection is down, this process wakes its own workers this often: a publish's notification may be lost. */
const UNLISTENED_WAKE_MS = 2000;
/** A retry's wake-up comes this long after the job's start_after (Postgres's clock), so the fetch finds it due. */
const RETRY_WAKE_MARGIN_MS = 100;

const GROUP_NAME = /^[a-z0-9][a-z0-9_-]{0,60}$/;

const ORPHAN_BROADCAST_SECONDS = 60;
/** How long a held job outlives its holder's last heartbeat (see PgBus.hold). */
const HOLD_SECONDS = 60;
/** How often a process with broadcast subscriptions looks for the queues of dead ones. */
const ORPHAN_SWEEP_MS = 30_000;

/** Runs `fn` again (up to 10 times, after a short random pause) when Postgres ends it as a deadlock victim. */
async function retryOnDeadlock<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt >= 10) throw err;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 200 * attempt));
    }
  }
}

/** pg-boss queue of the messages a (topic, group) gave up: `<queue>__dlq`. */
export function deadLetterQueue(topic: string, group: string): string {
  return `${queueName(topic, group)}__dlq`;
}

let lastMs = 0;
let counter = 0;
/**
 * A UUID that sorts after every one made before by this process (time, then a
 * counter): pg-boss fetches by `created_on, id`, and one insert gives every job
 * the same `created_on`, so this keeps a batch in publish order.
 */
function orderedId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else counter++;
  const hex = lastMs.toString(16).padStart(12, '0') + counter.toString(16).padStart(8, '0') + randomBytes(6).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function queueName(topic: string, group: string, instance?: string): string {
  return [topic.replace(/\./g, '_'), group.replace(/-/g, '_'), instance].filter(Boolean).join('__');
}

/**
 * The `pg` transport: pg-boss on the same Postgres. A topic is a pg-boss
 * event; each consumer group is a queue subscribed to it. Subscriptions are
 * stored, so a group that subscribed once keeps receiving while it is down.
 */
export class PgBus implements Bus {
  readonly kind = 'pg' as const;
  private readonly boss: PgBoss;
  private readonly schema: string;
  private readonly instance = randomBytes(4).toString('hex');
  private started = false;
  /** The channel a publish notifies with the name of each queue it gave jobs. */
  private readonly channel: string;
  /** pg-boss worker ids by queue name, to wake on a notification naming the queue. */
  private readonly workers = new Map<string, Set<string>>();
  private listener: pg.Client | undefined;
  /** Wakes this process's workers while it does not listen (before the first LISTEN, after a lost connection). */
  private unlistenedTimer: NodeJS.Timeout | undefined;
  /** (topic, group) pairs this process has broadcast subscriptions of: their dead siblings are swept. */
  private readonly broadcastGroups = new Map<string, { topic: string; group: string }>();
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Jobs this process's handlers hold, by queue: the heartbeat keeps them from expiring. */
  private readonly held = new Map<string, Set<string>>();
  private heartbeat: NodeJS.Timeout | undefined;
  /** This process's (non-broadcast) queues, whose abandoned jobs it releases. */
  private readonly queues = new Set<string>();
  private abandonTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: PgBusOptions) {
    this.schema = opts.schema ?? 'bus';
    if (!/^[a-z_][a-z0-9_]{0,40}$/.test(this.schema)) throw new Error(`Invalid bus schema "${this.schema}"`);
    this.channel = `${this.schema}_published`;
    this.boss = new PgBoss({
      connectionString: opts.connectionString,
      schema: this.schema,
      max: 4,
      application_name: 'assay-bus',
      schedule: false,
      maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds ?? 30,
    });
    this.boss.on('error', (err) => opts.logger.error({ err }, 'bus error'));
    guardJobCompletion();
    completionLogger = opts.logger;
  }

  async start(): Promise<void> {
    if (this.started) return;
    await this.boss.start();
    this.started = true;
    this.listen();
  }

  /** Wakes every worker of this process: each fetches at once instead of at its next poll. */
  private wakeAll(): void {
    for (const ids of this.workers.values()) for (const id of ids) this.boss.notifyWorker(id);
  }

  /** Not listening: wake the workers every UNLISTENED_WAKE_MS until LISTEN is back. */
  private unlistened(): void {
    this.unlistenedTimer ??= setInterval(() => this.wakeAll(), UNLISTENED_WAKE_MS).unref();
  }

  /**
   * LISTENs on the publish channel on a connection of its own and wakes this
   * process's workers of the notified topic, so a message is fetched at once
   * rather than at the next poll. A lost connection (Postgres restart,
   * failover) is opened again; until then this process wakes its workers
   * every 2 s, and once it listens again it wakes them all (a notification
   * of the gap was lost).
   */
  private listen(): void {
    if (!this.started) return;
    this.unlistened();
    const client = new pg.Client({ connectionString: this.opts.connectionString, application_name: 'assay-bus-listen' });
    this.listener = client;
    let retried = false;
    const retry = (err: unknown) => {
      if (retried || this.listener !== client) return;
      retried = true;
      this.listener = undefined;
      void client.end().catch(() => undefined);
      if (!this.started) return;
      this.unlistened();
      this.opts.logger.warn({ err }, 'bus LISTEN connection lost; waking the workers every 2 s until it is back');
      setTimeout(() => this.listen(), 2000).unref();
    };
    client.on('error', retry);
    client.on('end', () => retry(new Error('connection ended')));
    client.on('notification', (n) => {
      for (const id of this.workers.get(n.payload ?? '') ?? []) this.boss.notifyWorker(id);
    });
    client
      .connect()
      .then(() => client.query(`listen "${this.channel}"`))
      .then(() => {
        if (this.listener !== client) return;
        clearInterval(this.unlistenedTimer);
        this.unlistenedTimer = undefined;
        this.wakeAll();
      })
      .catch(retry);
  }

  async publish(topic: Topic, messages: BusMessage[]): Promise<void> {
    if (messages.length === 0) return;
    // pg-boss's own publish() drops failed sends (Promise.allSettled); insert() throws, which at-least-once needs.
    // Every group is subscribed to the topic; one that named its event types also to `topic#event` for each, and
    // gets only those. (A publisher of before the event lists reads only the topic rows and sends such a group
    // everything, which it skips: a rolling upgrade loses nothing.)
    const { rows } = await this.boss
      .getDb()
      .executeSql(`select event, name from ${this.schema}.subscription where event = $1 or starts_with(event, $1 || '#')`, [topic]);
    const wants = new Map<string, Set<string> | 'all'>();
    for (const { event, name } of rows as Array<{ event: string; name: string }>) {
      const want = wants.get(name);
      if (event !== topic) wants.set(name, (want instanceof Set ? want : new Set<string>()).add(event.slice(topic.length + 1)));
      else if (!want) wants.set(name, 'all');
    }
    const perJob = COMMAND_TOPICS.has(topic) ? 1 : MESSAGES_PER_JOB;
    const chunksOf = (list: BusMessage[]): JobData[] => {
      const chunks: JobData[] = [];
      for (let i = 0; i < list.length; i += perJob) {
        const chunk = list.slice(i, i + perJob).map(carry);
        chunks.push(chunk.length === 1 ? chunk[0]! : { batch: chunk });
      }
      return chunks;
    };
    const all = chunksOf(messages);
    const jobs = [...wants].flatMap(([name, want]) => (want === 'all' ? all : chunksOf(messages.filter((m) => want.has(m.value.event)))).map((data) => ({ id: orderedId(), name, data })));
    if (jobs.length === 0) return;
    await this.boss.insert(jobs);
    // Wakes the workers of the queues that got jobs, in every process; a lost notification costs a poll interval at most.
    await this.boss.getDb().executeSql('select pg_notify($1, q) from unnest($2::text[]) q', [this.channel, [...new Set(jobs.map((j) => j.name))]]);
  }

  /**
   * Points the queue at the topic and, when the group names its event types,
   * at `topic#event` for each (publishers then make it jobs of those only);
   * drops the event types an earlier version of the group named and no longer does.
   */
  private async subscribeTo(topic: Topic, name: string, events: readonly string[] | undefined): Promise<void> {
    const wanted = [topic, ...[...new Set(events ?? [])].map((e) => `${topic}#${e}`)];
    await this.boss
      .getDb()
      .executeSql(`delete from ${this.schema}.subscription where name = $1 and starts_with(event, $2 || '#') and not (event = any($3::text[]))`, [name, topic, wanted]);
    for (const event of wanted) await this.boss.subscribe(event, name);
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    if (!GROUP_NAME.test(opts.group)) throw new Error(`Invalid consumer group "${opts.group}"`);
    const wanted = wantedEvents(opts);
    const name = queueName(opts.topic, opts.group, opts.broadcast ? this.instance : undefined);
    const maxAttempts = this.opts.maxAttempts ?? MAX_ATTEMPTS;
    const deadLetters = deadLetterQueue(opts.topic, opts.group);
    if (!opts.broadcast) await retryOnDeadlock(() => this.boss.createQueue(deadLetters, { name: deadLetters, retentionMinutes: 14 * 24 * 60 }));
    // pg-boss 10 creates a queue's partition with an ALTER TABLE; two processes creating
    // queues at once (services starting side by side) can deadlock: Postgres ends one, which retries.
    await retryOnDeadlock(() =>
      this.boss.createQueue(name, {
        name,
        retryLimit: opts.broadcast ? 0 : maxAttempts - 1,
        retryDelay: 1,
        retryBackoff: true,
        // A broadcast queue of a process that died is not drained: keep its messages briefly.
        ...(opts.broadcast ? { retentionMinutes: 5, expireInSeconds: 60 } : { expireInSeconds: 15 * 60 }),
      }),
    );
    await this.subscribeTo(opts.topic, name, opts.events);
    const concurrency = Math.max(1, opts.concurrency ?? 1);
    // Up to `concurrency` jobs per fetch (a command job is one message; an event job up to
    // MESSAGES_PER_JOB), their messages handled at most `concurrency` at once.
    const batchSize = concurrency;
    // Set once work() returns; the handler reads it to wake its own worker.
    const worker: { id?: string } = {};
    // Set by close(): the messages of a fetched job not started yet go back to the group.
    let closing = false;
    // Events the group did not name (sent by a publisher of before the event lists) are skipped as handled.
    const handle = (m: Carried) => (wanted && !wanted.has(m.value.event) ? Promise.resolve() : handleInSpan(opts.handler, m.value, { topic: opts.topic, key: m.key, group: opts.group, traceparent: m.traceparent }));
    // Each message succeeds or fails on its own; a job keeps only the messages that failed for its next attempt.
    const settleBatch = async (jobs: Array<PgBoss.JobWithMetadata<JobData>>): Promise<void> => {
      const work = jobs.flatMap((job) => messagesOf(job.data).map((message) => ({ job, message })));
      const results = await runLimited(work, concurrency, (w) => handle(w.message), () => closing || !this.started);
      for (const job of jobs) {
        const failed: Array<{ message: Carried; reason: unknown }> = [];
        const unstarted: Carried[] = [];
        work.forEach((w, i) => {
          if (w.job !== job) return;
          const result = results[i];
          if (!result) unstarted.push(w.message);
          else if (result.status === 'rejected') failed.push({ message: w.message, reason: result.reason });
        });
        // A process leaving mid-job hands the messages it did not start back to the group, as a job of their own.
        if (unstarted.length > 0 && !opts.broadcast) {
          await this.boss.insert([{ id: orderedId(), name, data: unstarted.length === 1 ? unstarted[0]! : { batch: unstarted } }]);
          // The group's other processes fetch it at once, not at their next poll.
          await this.boss.getDb().executeSql('select pg_notify($1, $2)', [this.channel, name]);
        }
        if (failed.length === 0) continue;
        const attempts = job.retryCount + 1;
        const error = String(failed[0]!.reason).slice(0, 2000);
        if (!opts.broadcast && attempts >= maxAttempts) {
          for (const { message, reason } of failed) {
            const letter: DeadLetter = { key: message.key, value: message.value, error: String(reason).slice(0, 2000), attempts, topic: opts.topic, group: opts.group };
            await this.boss.send(deadLetters, letter);
            this.opts.logger.error({ err: reason, event: message.value.event, queue: name, attempts, deadLetter: deadLetters }, 'bus handler gave up; message sent to the dead-letter queue');
          }
        } else {
          for (const { message, reason } of failed) this.opts.logger.warn({ err: reason, event: message.value.event, queue: name, attempts }, 'bus handler failed; will retry');
          // The retry carries only what failed: what succeeded is not handled again.
          const rest = failed.map((f) => f.message);
          if (rest.length < messagesOf(job.data).length) {
            await this.boss.getDb().executeSql(`update ${this.schema}.job set data = $3 where name = $1 and id = $2`, [name, job.id, rest.length === 1 ? rest[0]! : { batch: rest }]);
          }
        }
        await this.boss.fail(name, job.id, { message: error.slice(0, 500) });
        if (opts.broadcast || attempts >= maxAttempts) continue;
        // Its worker fetches the retry when it comes due, not at the next poll.
        void this.wakeAtRetry(name, job.id, () => (worker.id && !closing ? worker.id : undefined));
      }
    };
    // One worker fetching up to `batchSize` jobs; held (heartbeat) while its handlers run.
    worker.id = await this.boss.work<JobData>(
      name,
      { batchSize, pollingIntervalSeconds: this.opts.pollingIntervalSeconds ?? DEFAULT_POLLING_SECONDS, includeMetadata: true },
      async (jobs) => {
        const release = opts.broadcast ? undefined : await this.hold(name, jobs.map((j) => j.id));
        try {
          await settleBatch(jobs);
        } finally {
          release?.();
        }
        // pg-boss 10 sleeps a polling interval after every fetch unless notified. A full fetch may have left
        // more waiting: fetch again at once. A partial one took all that was due; a publish meanwhile notified
        // the worker (pg-boss keeps a notification that comes while the handler runs), so it does not sleep.
        if (jobs.length >= batchSize && worker.id && !closing) this.boss.notifyWorker(worker.id);
      },
    );
    const mine = this.workers.get(name) ?? new Set<string>();
    this.workers.set(name, mine.add(worker.id));
    if (opts.broadcast) this.watchBroadcastGroup(opts.topic, opts.group);
    else this.watchAbandoned(name);
    return {
      close: async () => {
        closing = true;
        mine.delete(worker.id!);
        if (worker.id) await this.boss.offWork({ id: worker.id });
        if (opts.broadcast) {
          await this.boss.unsubscribe(opts.topic, name);
          // pg-boss 10's delete_queue trips its own foreign key while finished jobs remain: remove them first.
          await this.boss.getDb().executeSql(`delete from ${this.schema}.job where name = $1`, [name]);
          await this.boss.deleteQueue(name);
        }
      },
    };
  }

  /**
   * Wakes the worker `workerId()` names (none once closed) when the failed job's retry is due: at its
   * start_after, read as an interval from Postgres's own clock. A failed read leaves the poll.
   */
  private async wakeAtRetry(queue: string, jobId: string, workerId: () => string | undefined): Promise<void> {
    try {
      const { rows } = await this.boss
        .getDb()
        .executeSql(`select greatest(0, extract(epoch from start_after - now()) * 1000)::float8 as ms from ${this.schema}.job where name = $1 and id = $2 and state = 'retry'`, [queue, jobId]);
      const ms = (rows as Array<{ ms: number }>)[0]?.ms;
      if (ms === undefined) return;
      setTimeout(() => {
        const id = workerId();
        if (id && this.started) this.boss.notifyWorker(id);
      }, ms + RETRY_WAKE_MARGIN_MS).unref();
    } catch (err) {
      if (this.started) this.opts.logger.warn({ err, queue }, 'bus: could not read when a retry is due; the next poll fetches it');
    }
  }

  /**
   * Holds fetched jobs while their handlers run: they expire `holdSeconds` after this process's last
   * heartbeat instead of pg-boss's 15 minutes, so the jobs of a process killed mid-batch come again
   * within about a minute and a half (found by `make soak`: a runner SIGKILLed while a command waited
   * for a free slot left that execution queued for 15 minutes, and its event batches as long). A
   * failed hold (Postgres down) only leaves the 15 minutes. Returns the release.
   */
  private async hold(queue: string, ids: string[]): Promise<() => void> {
    const holdSeconds = this.opts.holdSeconds ?? HOLD_SECONDS;
    const set = this.held.get(queue) ?? new Set<string>();
    this.held.set(queue, set);
    for (const id of ids) set.add(id);
    await this.beat(queue, ids, holdSeconds);
    this.heartbeat ??= setInterval(() => {
      for (const [q, held] of this.held) if (held.size) void this.beat(q, [...held], holdSeconds);
    }, (holdSeconds * 1000) / 3).unref();
    return () => {
      for (const id of ids) set.delete(id);
    };
  }

  /**
   * A process killed between pg-boss's fetch and its first heartbeat leaves a job with pg-boss's
   * 15-minute expiry (found by `make soak`: an auth process killed at that moment). Every third of
   * `holdSeconds`, each process gives the active jobs of its queues that no heartbeat renewed for
   * `holdSeconds` the short expiry, so maintenance hands them out again. A live holder beats every
   * third of it, so its jobs never qualify.
   */
  private watchAbandoned(queue: string): void {
    this.queues.add(queue);
    const holdSeconds = this.opts.holdSeconds ?? HOLD_SECONDS;
    this.abandonTimer ??= setInterval(() => void this.releaseAbandoned().catch((err: unknown) => {
      if (this.started) this.opts.logger.warn({ err }, 'bus: could not release abandoned jobs; trying again later');
    }), (holdSeconds * 1000) / 3).unref();
  }

  /** Shortens the expiry of active jobs of this process's queues that nobody renewed (see watchAbandoned); returns how many. */
  async releaseAbandoned(): Promise<number> {
    if (this.queues.size === 0) return 0;
    const holdSeconds = this.opts.holdSeconds ?? HOLD_SECONDS;
    const { rowCount } = (await this.boss.getDb().executeSql(
      `update ${this.schema}.job set expire_in = make_interval(secs => $2)
        where name = any($1::text[]) and state = 'active'
          and started_on < now() - make_interval(secs => $2) and expire_in > make_interval(secs => $2)`,
      [[...this.queues], holdSeconds],
    )) as { rowCount?: number };
    return rowCount ?? 0;
  }

  private async beat(queue: string, ids: string[], holdSeconds: number): Promise<void> {
    try {
      await this.boss.getDb().executeSql(
        `update ${this.schema}.job set started_on = now(), expire_in = make_interval(secs => $3) where name = $1 and id = any($2::uuid[]) and state = 'active'`,
        [queue, ids, holdSeconds],
      );
    } catch (err) {
      if (this.started) this.opts.logger.warn({ err, queue }, 'bus: could not renew held jobs; they expire later or come again');
    }
  }

  /**
   * A broadcast queue belongs to one process. One that was killed never closes it, so its subscription
   * would stay and every later publish would add a job to a queue nobody reads (found by `make soak`:
   * each gateway restart left one more). Every process with a broadcast subscription therefore removes
   * the queues of its (topic, group) whose oldest waiting message is older than `orphanBroadcastSeconds`,
   * at subscribe and every 30 s.
   */
  private watchBroadcastGroup(topic: string, group: string): void {
    this.broadcastGroups.set(`${topic}\n${group}`, { topic, group });
    const sweep = () =>
      this.sweepOrphanBroadcasts().catch((err: unknown) => {
        if (this.started) this.opts.logger.warn({ err }, 'sweeping the broadcast queues of dead processes failed; trying again later');
      });
    void sweep();
    this.sweepTimer ??= setInterval(() => void sweep(), ORPHAN_SWEEP_MS).unref();
  }

  /** Removes the broadcast queues of dead processes (see watchBroadcastGroup); returns their names. */
  async sweepOrphanBroadcasts(): Promise<string[]> {
    const removed: string[] = [];
    const db = this.boss.getDb();
    for (const { topic, group } of this.broadcastGroups.values()) {
      // Broadcast queues are `<topic>__<group>__<instance>`, the instance 8 hex digits (names are [a-z0-9_]).
      const pattern = `^${queueName(topic, group)}__[0-9a-f]{8}$`;
      const { rows } = (await db.executeSql(
        `select s.name from ${this.schema}.subscription s
          where s.event = $1 and s.name ~ $2 and s.name <> $3
            and exists (select 1 from ${this.schema}.job j where j.name = s.name and j.state = 'created'
                         and j.created_on < now() - make_interval(secs => $4))`,
        [topic, pattern, queueName(topic, group, this.instance), this.opts.orphanBroadcastSeconds ?? ORPHAN_BROADCAST_SECONDS],
      )) as { rows: Array<{ name: string }> };
      for (const { name } of rows) {
        await this.boss.unsubscribe(topic, name);
        // pg-boss 10's delete_queue trips its own foreign key while jobs remain: remove them first.
        await db.executeSql(`delete from ${this.schema}.job where name = $1`, [name]);
        await this.boss.deleteQueue(name);
        this.opts.logger.info({ queue: name, topic }, 'removed the broadcast queue of a process that is gone');
        removed.push(name);
      }
    }
    return removed;
  }

  async isHealthy(): Promise<boolean> {
    return (await this.health()).status === 'up';
  }

  /** The bus's Postgres answers `select 1` within 800 ms. */
  async health(): Promise<BusHealth> {
    if (!this.started) return { status: 'down', detail: 'not started' };
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.boss.getDb().executeSql('select 1', []),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer within 800 ms')), 800))),
      ]);
      return { status: 'up' };
    } catch (err) {
      return { status: 'down', detail: `bus database: ${err instanceof Error ? err.message : String(err)}` };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Dead letters of (topic, group) waiting in its DLQ queue (the runbook's DLQ depth on pg). */
  async deadLetterCount(topic: Topic, group: string): Promise<number> {
    const { rows } = await this.boss
      .getDb()
      .executeSql(`select count(*)::int as n from ${this.schema}.job where name = $1 and state in ('created', 'retry')`, [deadLetterQueue(topic, group)]);
    return (rows as Array<{ n: number }>)[0]!.n;
  }

  /** Moves every dead letter of (topic, group) back onto the group's queue, with its attempts reset. */
  async replayDeadLetters(topic: Topic, group: string): Promise<number> {
    const dlq = deadLetterQueue(topic, group);
    const queue = queueName(topic, group);
    let replayed = 0;
    for (;;) {
      const jobs = await this.boss.fetch<DeadLetter>(dlq, { batchSize: 100 });
      if (!jobs || jobs.length === 0) break;
      await this.boss.insert(jobs.map((j) => ({ id: orderedId(), name: queue, data: { key: j.data.key, value: j.data.value } satisfies JobData })));
      await this.boss.complete(dlq, jobs.map((j) => j.id));
      replayed += jobs.length;
    }
    if (replayed > 0) await this.boss.getDb().executeSql('select pg_notify($1, $2)', [this.channel, queue]);
    this.opts.logger.info({ topic, group, replayed }, 'dead letters replayed onto the group queue');
    return replayed;
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    clearInterval(this.abandonTimer);
    this.abandonTimer = undefined;
    clearInterval(this.unlistenedTimer);
    this.unlistenedTimer = undefined;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.boss.stop({ graceful: true, wait: true, timeout: 5000 });
  }
}
