import pg from 'pg';

/** A message parked behind a failing message of the same key. */
export interface ParkedMessage {
  id: string;
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

/**
 * Per-key holds of the Kafka transport's non-blocking retries, in Postgres
 * (schema `bus`, the service's own database), so every process of a group
 * sees them: while a message of key K waits on the retry ladder, the group's
 * later messages of K are parked here instead of being handled, and are
 * released in order once the held message succeeds or is dead-lettered. The
 * partition itself never waits. Bus bookkeeping, not organization data.
 */
export class KafkaHolds {
  private readonly pool: pg.Pool;
  private ready?: Promise<void>;

  constructor(connectionString: string, private readonly schema = 'bus') {
    if (!/^[a-z_][a-z0-9_]{0,40}$/.test(schema)) throw new Error(`Invalid bus schema "${schema}"`);
    this.pool = new pg.Pool({ connectionString, max: 3, application_name: 'assay-bus-holds' });
    this.pool.on('error', () => undefined);
  }

  /** Creates the two tables once (idempotent; several replicas may race). */
  init(): Promise<void> {
    this.ready ??= (async () => {
      const s = this.schema;
      const client = await this.pool.connect();
      try {
        await client.query('begin');
        // Serialize concurrent creators (CREATE ... IF NOT EXISTS can still collide on the catalog).
        await client.query('select pg_advisory_xact_lock(hashtext($1))', [`${s}.kafka_holds`]);
        await client.query(`create schema if not exists ${s}`);
        await client.query(
          `create table if not exists ${s}.kafka_holds (group_id text not null, key text not null, since timestamptz not null default now(), primary key (group_id, key))`,
        );
        await client.query(
          `create table if not exists ${s}.kafka_held_messages (id bigserial primary key, group_id text not null, key text not null, value bytea not null, headers jsonb not null, created_at timestamptz not null default now())`,
        );
        await client.query(`create index if not exists kafka_held_messages_key on ${s}.kafka_held_messages (group_id, key, id)`);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        this.ready = undefined;
        throw err;
      } finally {
        client.release();
      }
    })();
    return this.ready;
  }

  /**
   * Parks the message when its key is held (true), else leaves it to be handled (false). One
   * statement: FOR SHARE makes a release that is deleting the hold wait for this park, or this park
   * see the hold gone.
   */
  async parkIfHeld(groupId: string, key: string, value: Buffer, headers: Record<string, string>): Promise<boolean> {
    await this.init();
    const { rowCount } = await this.pool.query(
      `with h as (select 1 from ${this.schema}.kafka_holds where group_id = $1 and key = $2 for share)
       insert into ${this.schema}.kafka_held_messages (group_id, key, value, headers) select $1, $2, $3, $4 from h`,
      [groupId, key, value, JSON.stringify(headers)],
    );
    return Boolean(rowCount);
  }

  /** Holds the key (idempotent). */
  async hold(groupId: string, key: string): Promise<void> {
    await this.init();
    await this.pool.query(`insert into ${this.schema}.kafka_holds (group_id, key) values ($1, $2) on conflict do nothing`, [groupId, key]);
  }

  /**
   * The next parked message of the key, oldest first; when none is left the
   * hold is removed in the same transaction (undefined: the key flows again).
   */
  async next(groupId: string, key: string): Promise<ParkedMessage | undefined> {
    await this.init();
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const held = await client.query(`select 1 from ${this.schema}.kafka_holds where group_id = $1 and key = $2 for update`, [groupId, key]);
      if (!held.rowCount) {
        await client.query('commit');
        return undefined;
      }
      const { rows } = await client.query<{ id: string; value: Buffer; headers: Record<string, string> }>(
        `select id, value, headers from ${this.schema}.kafka_held_messages where group_id = $1 and key = $2 order by id limit 1`,
        [groupId, key],
      );
      if (rows.length === 0) await client.query(`delete from ${this.schema}.kafka_holds where group_id = $1 and key = $2`, [groupId, key]);
      await client.query('commit');
      return rows[0] ? { id: rows[0].id, key, value: rows[0].value, headers: rows[0].headers } : undefined;
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Removes a parked message once it was handled (or moved onto the retry ladder). */
  async done(id: string): Promise<void> {
    await this.pool.query(`delete from ${this.schema}.kafka_held_messages where id = $1`, [id]);
  }

  /** Held keys and parked messages (a runbook figure: `/readyz` detail and the README's queries). */
  async counts(): Promise<{ holds: number; parked: number }> {
    await this.init();
    const { rows } = await this.pool.query<{ holds: string; parked: string }>(
      `select (select count(*) from ${this.schema}.kafka_holds) as holds, (select count(*) from ${this.schema}.kafka_held_messages) as parked`,
    );
    return { holds: Number(rows[0]!.holds), parked: Number(rows[0]!.parked) };
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
