import { sql } from 'kysely';
import { createDatabase, LeasedTable, type Database } from '@assay/db';
import { createTestDatabase, type TestDatabase } from '@assay/testing';

let database: TestDatabase;
let db: Database<any>;

interface Job {
  id: string;
  status: string;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  not_before: Date;
  error: string | null;
  note: string | null;
  updated_at: Date;
}

// Work that waits for a time (not_before) and is stamped on each change, as the analysis service's tables are.
const jobs = new LeasedTable<Job>({ table: 'jobs', key: 'id', held: ['running'], waiting: 'pending', failed: 'failed', notBefore: 'not_before', touched: 'updated_at' });
// Work a message names, as the runner's executions are: queued, then held while preparing and running.
const runs = new LeasedTable<Job>({ table: 'runs', key: 'id', held: ['pending', 'running'], waiting: 'queued', failed: 'failed' });
// Work that stays in its held status while no worker holds it, with a limit of attempts, as the crawler's sessions are.
const crawls = new LeasedTable<Job>({ table: 'crawls', key: 'id', held: ['running'], waiting: 'running', failed: 'failed', order: 'note', maxAttempts: 2 });

const row = async (table: string, id: string): Promise<Job> => (await db.db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as Job;
const expire = (table: string, id: string) => sql`update ${sql.table(table)} set lease_expires_at = now() - interval '1 second' where id = ${id}`.execute(db.db);

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase({ connectionString: database.url, schema: 'public' });
  for (const [table, waiting] of [
    ['jobs', 'pending'],
    ['runs', 'queued'],
    ['crawls', 'running'],
  ]) {
    await sql`create table ${sql.table(table!)} (
      id text primary key, status text not null default ${sql.lit(waiting)}, attempts int not null default 0,
      lease_owner text, lease_expires_at timestamptz, not_before timestamptz not null default now(),
      error text, note text, updated_at timestamptz not null default '2000-01-01')`.execute(db.db);
  }
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});
beforeEach(async () => {
  await sql`truncate jobs, runs, crawls`.execute(db.db);
});

describe('a leased table', () => {
  it('claims the next due row under a lease, one worker each, and leaves rows not yet due', async () => {
    await sql`insert into jobs (id, not_before) values ('later', now() + interval '1 hour'), ('b', now() - interval '1 minute'), ('a', now() - interval '2 minutes')`.execute(db.db);
    const first = await jobs.claimNext(db.db, 'w1', 30, 'running');
    const second = await jobs.claimNext(db.db, 'w2', 30, 'running');
    expect([first?.id, first?.lease_owner, first?.status, first?.attempts]).toEqual(['a', 'w1', 'running', 1]);
    expect([second?.id, second?.lease_owner]).toEqual(['b', 'w2']);
    expect(first!.lease_expires_at!.getTime() - Date.now()).toBeGreaterThan(25_000);
    expect(first!.updated_at.getFullYear()).toBeGreaterThan(2000);
    expect(await jobs.claimNext(db.db, 'w3', 30, 'running')).toBeUndefined();
  });

  it('takes a held row again once its worker stopped renewing, counting the attempt', async () => {
    await sql`insert into jobs (id) values ('a')`.execute(db.db);
    await jobs.claimNext(db.db, 'dead', 30, 'running');
    expect(await jobs.claimNext(db.db, 'w2', 30, 'running')).toBeUndefined();
    await expire('jobs', 'a');
    const again = await jobs.claimNext(db.db, 'w2', 30, 'running');
    expect([again?.lease_owner, again?.attempts]).toEqual(['w2', 2]);
    // The old worker's lease is gone: it can neither renew nor lock nor finish.
    expect(await jobs.renew(db.db, 'a', 'dead', 30)).toBeUndefined();
    expect(await jobs.lockIfHeld(db.db, 'a', 'dead')).toBe(false);
    expect(await jobs.release(db.db, 'a', 'completed', { owner: 'dead' })).toBeUndefined();
    expect((await row('jobs', 'a')).status).toBe('running');
  });

  it('renews only the holder’s lease and answers the status', async () => {
    await sql`insert into jobs (id) values ('a')`.execute(db.db);
    await jobs.claimNext(db.db, 'w1', 2, 'running');
    const before = (await row('jobs', 'a')).lease_expires_at!;
    expect(await jobs.renew(db.db, 'a', 'w1', 60)).toBe('running');
    expect((await row('jobs', 'a')).lease_expires_at!.getTime()).toBeGreaterThan(before.getTime() + 50_000);
    expect(await jobs.renew(db.db, 'a', 'w2', 60)).toBeUndefined();
    expect(await jobs.lockIfHeld(db.db, 'a', 'w1')).toBe(true);
  });

  it('puts a failed attempt back with a backoff, and fails it for good at the last attempt', async () => {
    await sql`insert into jobs (id) values ('a')`.execute(db.db);
    await jobs.claimNext(db.db, 'w1', 30, 'running');
    await jobs.retryOrFail(db.db, 'a', 'other', { error: 'not mine', maxAttempts: 3, delaySeconds: 60 });
    expect((await row('jobs', 'a')).status).toBe('running');
    await jobs.retryOrFail(db.db, 'a', 'w1', { error: 'x'.repeat(2000), maxAttempts: 2, delaySeconds: 60 });
    const retried = await row('jobs', 'a');
    expect([retried.status, retried.lease_owner, retried.lease_expires_at, retried.error?.length]).toEqual(['pending', null, null, 1000]);
    expect(retried.not_before.getTime() - Date.now()).toBeGreaterThan(55_000);
    expect(await jobs.claimNext(db.db, 'w1', 30, 'running')).toBeUndefined();
    await sql`update jobs set not_before = now()`.execute(db.db);
    await jobs.claimNext(db.db, 'w1', 30, 'running');
    await jobs.retryOrFail(db.db, 'a', 'w1', { error: 'again', maxAttempts: 2, delaySeconds: 60 });
    expect((await row('jobs', 'a')).status).toBe('failed');
  });

  it('claims a named waiting row once, and hands a held one back or reaps an expired one with the caller’s changes', async () => {
    await sql`insert into runs (id) values ('r1'), ('r2')`.execute(db.db);
    expect((await runs.claim(db.db, 'r1', 'w1', 30, 'pending'))?.status).toBe('pending');
    expect(await runs.claim(db.db, 'r1', 'w2', 30, 'pending')).toBeUndefined();
    expect(await runs.renew(db.db, 'r1', 'w1', 30)).toBe('pending');

    // A shutdown hands it back: released, the attempt not counted, with what the caller adds.
    expect(await runs.handBack(db.db, 'r1', 'w2', { note: 'not mine' })).toBeUndefined();
    const back = await runs.handBack(db.db, 'r1', 'w1', { note: 'requeued' });
    expect([back?.status, back?.lease_owner, back?.attempts, back?.note]).toEqual(['queued', null, 0, 'requeued']);

    // A worker that stopped: not reaped while its lease runs, then reaped once.
    await runs.claim(db.db, 'r2', 'dead', 30, 'pending');
    expect(await runs.expiredRows(db.db, 10)).toEqual([]);
    expect(await runs.reap(db.db, 'r2', 'failed', { error: 'stopped' })).toBeUndefined();
    await expire('runs', 'r2');
    expect((await runs.expiredRows(db.db, 10)).map((r) => r.id)).toEqual(['r2']);
    const reaped = await runs.reap(db.db, 'r2', 'failed', { error: 'stopped' });
    expect([reaped?.status, reaped?.error, reaped?.lease_owner]).toEqual(['failed', 'stopped', null]);
    expect(await runs.reap(db.db, 'r2', 'queued')).toBeUndefined();
    expect(await runs.expiredRows(db.db, 10)).toEqual([]);
  });

  it('takes a row that waits in its held status only while no worker holds it, and fails it once its attempts are spent', async () => {
    await sql`insert into crawls (id, note) values ('b', '2'), ('a', '1')`.execute(db.db);
    const first = await crawls.claimNext(db.db, 'w1', 30, 'running');
    expect([first?.id, first?.lease_owner, first?.attempts]).toEqual(['a', 'w1', 1]);
    // A held row in the waiting status is not waiting: the next claim takes the other one, then nothing.
    expect((await crawls.claimNext(db.db, 'w2', 30, 'running'))?.id).toBe('b');
    expect(await crawls.claimNext(db.db, 'w3', 30, 'running')).toBeUndefined();
    expect(await crawls.failExhausted(db.db, { error: 'gone' })).toEqual([]);

    // Handed back on a clean shutdown: taken again at once, the attempt not counted.
    await crawls.handBack(db.db, 'a', 'w1');
    expect([(await row('crawls', 'a')).status, (await row('crawls', 'a')).attempts]).toEqual(['running', 0]);
    expect((await crawls.claimNext(db.db, 'w3', 30, 'running'))?.id).toBe('a');

    // 'b' dies twice: its attempts are spent, so no claim takes it and it is failed.
    await expire('crawls', 'b');
    expect((await crawls.claimNext(db.db, 'w4', 30, 'running'))?.attempts).toBe(2);
    await expire('crawls', 'b');
    expect(await crawls.claimNext(db.db, 'w5', 30, 'running')).toBeUndefined();
    const failed = await crawls.failExhausted(db.db, { error: 'gone' });
    expect(failed.map((r) => [r.id, r.status, r.error, r.lease_owner])).toEqual([['b', 'failed', 'gone', null]]);
    expect((await row('crawls', 'a')).status).toBe('running');
  });

  it('claims a named row that waits in its held status only while no live lease holds it', async () => {
    await sql`insert into crawls (id) values ('a')`.execute(db.db);
    expect((await crawls.claim(db.db, 'a', 'w1', 30, 'running'))?.lease_owner).toBe('w1');
    // A second message for the same row (a redelivery) finds it held: nothing changes.
    expect(await crawls.claim(db.db, 'a', 'w2', 30, 'running')).toBeUndefined();
    expect([(await row('crawls', 'a')).lease_owner, (await row('crawls', 'a')).attempts]).toEqual(['w1', 1]);
    // Its worker stopped: the row is free again, and the attempt counts.
    await expire('crawls', 'a');
    expect(await crawls.expiredRows(db.db, 10, ['id', 'attempts'])).toEqual([{ id: 'a', attempts: 1 }]);
    const again = await crawls.claim(db.db, 'a', 'w2', 30, 'running');
    expect([again?.lease_owner, again?.attempts]).toEqual(['w2', 2]);
    expect(await crawls.expiredRows(db.db, 10)).toEqual([]);
  });
});
