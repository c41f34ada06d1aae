import { eventually, useHarness } from '@assay/testing';
import { packSuite, startSuitesHarness } from './suites-harness.js';

// A runner told to stop (SIGTERM: drain) in the middle of a suite run, on real
// parts (Postgres, the pg bus, boxes): the shard it runs and the one waiting
// for its slot go back to the queue at once, other runners finish the run,
// and the tests that had passed are not run again.
jest.setTimeout(240_000);

describe('a draining shard runner', () => {
  const h = useHarness(() => startSuitesHarness({ shardRunners: 0 }));

  it('hands the shard it runs and the one waiting for it back to the queue, and other runners finish the run', async () => {
    const t = h.tenant();
    const projectId = await t.project();
    const up = await t.upload({ project_id: projectId, name: 'slow' }, packSuite('slow'));
    expect(up.status).toBe(201);
    // One slot: it runs shard 0 and holds the command of shard 1 until a slot frees.
    const first = await h.startShardRunner();
    const run = await t.ex('POST', '/api/v1/executions/async', { project_id: projectId, suite_id: up.body.id, shards: 2 });
    expect(run.status).toBe(202);
    const id = run.body.id as string;
    const results = () => h.database.db.selectFrom('test_results').select(['id', 'status', 'completed_at']).where('execution_id', '=', id).execute();
    const passedBefore = await eventually(async () => {
      const rows = (await results()).filter((r) => r.status === 'passed');
      return rows.length > 0 ? rows : undefined;
    }, 120_000, 200);

    const started = Date.now();
    await first.drain();
    const drainMs = Date.now() - started;
    // At once, not after the run: the rest of it is at least 6 s of tests, each batch in a Playwright Test started anew.
    expect(drainMs).toBeLessThan(5000);
    const shards = await h.database.db.selectFrom('suite_shards').select(['shard', 'status', 'lease_owner', 'attempts']).where('execution_id', '=', id).orderBy('shard').execute();
    // Back in the queue, no owner, and the handing back is not counted as a crashed attempt.
    expect(shards).toEqual([
      { shard: 0, status: 'queued', lease_owner: null, attempts: 0 },
      { shard: 1, status: 'queued', lease_owner: null, attempts: 0 },
    ]);
    const afterDrain = await results();
    expect(afterDrain.filter((r) => r.status === 'running')).toEqual([]);
    expect(afterDrain.filter((r) => r.status === 'passed').length).toBeGreaterThanOrEqual(passedBefore.length);

    await Promise.all([h.startShardRunner(), h.startShardRunner()]);
    const done = await eventually(async () => {
      const r = await t.ex('GET', `/api/v1/executions/${id}`);
      return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : undefined;
    }, 120_000, 200);
    expect(done).toMatchObject({ status: 'completed', total_tests: 6, passed_tests: 6, failed_tests: 0 });
    // What had passed before the drain was kept, not run again.
    const final = new Map((await results()).map((r) => [r.id, r]));
    for (const r of passedBefore) expect(final.get(r.id)!.completed_at).toEqual(r.completed_at);
    const finalShards = await h.database.db.selectFrom('suite_shards').select(['status', 'attempts']).where('execution_id', '=', id).execute();
    expect(finalShards).toEqual([
      { status: 'done', attempts: 1 },
      { status: 'done', attempts: 1 },
    ]);
  });
});
