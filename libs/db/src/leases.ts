import { sql, type Kysely } from 'kysely';

/**
 * A table whose rows are work that one worker at a time takes under a lease:
 * its rows have a `status`, an `attempts` count, a `lease_owner` and a
 * `lease_expires_at`. A worker claims a row (the lease and an attempt), renews
 * the lease while it works, and releases it with the row's new status; a row
 * whose worker stopped renewing is reaped (taken again, or failed). A row is
 * waiting when it is in the `waiting` status and no worker holds it, so the
 * waiting status may also be a held one (a running crawl whose crawler let go).
 */
export interface LeasedTableSpec<Status extends string> {
  table: string;
  /** The key column. */
  key: string;
  /** The statuses of a row a worker holds. */
  held: readonly Status[];
  /** The status of a row waiting for a worker. */
  waiting: Status;
  /** The status of a row given up after its last attempt. */
  failed: Status;
  /** The column saying when a waiting row is due (retries back off through it); absent: due at once. */
  notBefore?: string;
  /** A column stamped with the time of every change. */
  touched?: string;
  /** The column `claimNext` takes rows in the order of (default: `notBefore`, else the key). */
  order?: string;
  /**
   * Attempts a row may have: `claimNext` leaves a row that used them up, for
   * `failExhausted`. Absent: no limit at claim (`retryOrFail` may still give up).
   */
  maxAttempts?: number;
}

/** What `retryOrFail` writes: the error, and the backoff before the next attempt. */
export interface RetryOrFail {
  error: string;
  /** Failed for good once this many attempts were made (0: at once). */
  maxAttempts: number;
  delaySeconds: number;
}

type Patch = Record<string, unknown>;

/**
 * The one lease logic of every leased table (claim, renew, retry-or-fail,
 * release, reap); the repositories say only their table's statuses and
 * what else a change writes.
 */
export class LeasedTable<Row, Status extends string = string> {
  constructor(private readonly spec: LeasedTableSpec<Status>) {}

  /** Takes the next due waiting row, or a held one whose lease ran out (its worker stopped), under a lease, as `status`. */
  async claimNext(db: Kysely<any>, owner: string, leaseSeconds: number, status: Status): Promise<Row | undefined> {
    const { table, key, notBefore, order, maxAttempts } = this.spec;
    let next = db
      .selectFrom(table)
      .select(key)
      .where((eb) => eb.or([this.due(), this.expired()]));
    if (maxAttempts !== undefined) next = next.where('attempts', '<', maxAttempts);
    next = next
      .orderBy(order ?? notBefore ?? key)
      .limit(1)
      .forUpdate()
      .skipLocked();
    return (await this.update(db, { status, ...this.grant(owner, leaseSeconds) }).where(key, '=', next).returningAll().executeTakeFirst()) as Row | undefined;
  }

  /**
   * Takes one waiting row (the one a message names) under a lease, as `status`; undefined when another worker
   * or a cancel got there first. When the waiting status is also a held one, the row must be free: no worker
   * holds it, or its worker's lease ran out.
   */
  async claim(db: Kysely<any>, id: string, owner: string, leaseSeconds: number, status: Status): Promise<Row | undefined> {
    const { key, waiting, held } = this.spec;
    let q = this.update(db, { status, ...this.grant(owner, leaseSeconds) })
      .where(key, '=', id)
      .where('status', '=', waiting);
    if (held.includes(waiting)) q = q.where(sql<boolean>`(lease_owner is null or lease_expires_at < now())`);
    return (await q.returningAll().executeTakeFirst()) as Row | undefined;
  }

  /** Extends the lease of a row `owner` holds: its status, or undefined when the lease is no longer ours. */
  async renew(db: Kysely<any>, id: string, owner: string, leaseSeconds: number): Promise<Status | undefined> {
    const row = await db
      .updateTable(this.spec.table)
      .set({ lease_expires_at: this.leaseEnd(leaseSeconds) })
      .where(this.spec.key, '=', id)
      .where(this.heldBy(owner))
      .returning('status')
      .executeTakeFirst();
    return row?.status as Status | undefined;
  }

  /**
   * Locks the row while `owner` holds it, inside the caller's transaction: a
   * worker that lost its lease writes nothing. FOR NO KEY UPDATE: the holder
   * never changes the key, so inserts that refer to the row (whose foreign-key
   * checks take KEY SHARE) need not wait for the holder's transaction.
   */
  async lockIfHeld(db: Kysely<any>, id: string, owner: string): Promise<boolean> {
    return !!(await db.selectFrom(this.spec.table).select(this.spec.key).where(this.spec.key, '=', id).where(this.heldBy(owner)).forNoKeyUpdate().executeTakeFirst());
  }

  /**
   * Gives a row `owner` holds back to waiting without counting the attempt (a
   * clean shutdown: another worker takes it at once), with `patch`.
   */
  async handBack(db: Kysely<any>, id: string, owner: string, patch: Patch = {}): Promise<Row | undefined> {
    return this.release(db, id, this.spec.waiting, { owner, patch: { ...patch, attempts: sql`greatest(attempts - 1, 0)` } });
  }

  /** Back to waiting with a backoff, or failed for good after `maxAttempts`; only while `owner` holds the row. */
  async retryOrFail(db: Kysely<any>, id: string, owner: string, r: RetryOrFail): Promise<void> {
    const { waiting, failed, notBefore } = this.spec;
    await this.update(db, {
      status: sql`case when attempts >= ${r.maxAttempts} then ${sql.lit(failed)} else ${sql.lit(waiting)} end`,
      ...(notBefore ? { [notBefore]: sql`now() + make_interval(secs => ${r.delaySeconds})` } : {}),
      error: r.error.slice(0, 1000),
      ...RELEASED,
    })
      .where(this.spec.key, '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** Ends the lease with the row's new status (and `patch`): only while `owner` holds it, when given. */
  async release(db: Kysely<any>, id: string, status: Status, opts: { owner?: string; patch?: Patch } = {}): Promise<Row | undefined> {
    let q = this.update(db, { ...opts.patch, status, ...RELEASED }).where(this.spec.key, '=', id);
    if (opts.owner !== undefined) q = q.where(this.heldBy(opts.owner));
    return (await q.returningAll().executeTakeFirst()) as Row | undefined;
  }

  /** Held rows whose worker stopped renewing its lease (at most `limit`); only `columns` of them when given (a row with large columns). */
  async expiredRows(db: Kysely<any>, limit: number): Promise<Row[]>;
  async expiredRows<K extends keyof Row & string>(db: Kysely<any>, limit: number, columns: readonly K[]): Promise<Pick<Row, K>[]>;
  async expiredRows(db: Kysely<any>, limit: number, columns?: readonly string[]): Promise<unknown[]> {
    const q = db.selectFrom(this.spec.table);
    return (columns ? q.select(columns as string[]) : q.selectAll()).where(this.expired()).limit(limit).execute();
  }

  /** Held rows that used up `maxAttempts` and that no live lease holds: failed, with `patch`. */
  async failExhausted(db: Kysely<any>, patch: Patch = {}): Promise<Row[]> {
    const { held, maxAttempts } = this.spec;
    if (maxAttempts === undefined) return [];
    return (await this.update(db, { ...patch, status: this.spec.failed, ...RELEASED })
      .where(sql<boolean>`status in (${sql.join(held.map((s) => sql.lit(s)))})`)
      .where('attempts', '>=', maxAttempts)
      .where(sql<boolean>`(lease_expires_at is null or lease_expires_at < now())`)
      .returningAll()
      .execute()) as Row[];
  }

  /** Takes a held row out of a stopped worker's hands, with its new status (and `patch`), if its lease has still run out. */
  async reap(db: Kysely<any>, id: string, status: Status, patch: Patch = {}): Promise<Row | undefined> {
    return (await this.update(db, { ...patch, status, ...RELEASED })
      .where(this.spec.key, '=', id)
      .where(this.expired())
      .returningAll()
      .executeTakeFirst()) as Row | undefined;
  }

  private update(db: Kysely<any>, patch: Patch) {
    return db.updateTable(this.spec.table).set(this.spec.touched ? { ...patch, [this.spec.touched]: sql`now()` } : patch);
  }

  private grant(owner: string, leaseSeconds: number): Patch {
    return { lease_owner: owner, lease_expires_at: this.leaseEnd(leaseSeconds), attempts: sql`attempts + 1` };
  }

  private leaseEnd(leaseSeconds: number) {
    return sql`now() + make_interval(secs => ${leaseSeconds})`;
  }

  private heldBy(owner: string) {
    return sql<boolean>`lease_owner = ${owner} and status in (${sql.join(this.spec.held.map((s) => sql.lit(s)))})`;
  }

  private due() {
    const { waiting, notBefore } = this.spec;
    const waitingRow = sql<boolean>`status = ${sql.lit(waiting)} and lease_owner is null`;
    return notBefore ? sql<boolean>`${waitingRow} and ${sql.ref(notBefore)} <= now()` : waitingRow;
  }

  private expired() {
    return sql<boolean>`status in (${sql.join(this.spec.held.map((s) => sql.lit(s)))}) and lease_expires_at < now()`;
  }
}

/** The columns of a row no worker holds. */
const RELEASED = { lease_owner: null, lease_expires_at: null };
