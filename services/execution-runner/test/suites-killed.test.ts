import { readdirSync, readFileSync } from 'node:fs';
import { eventually, useHarness } from '@assay/testing';
import { packSuite, startSuitesHarness } from './suites-harness.js';

// A runner killed without a drain (SIGKILL, an OOM kill, a node lost) in the
// middle of a suite shard or of a listing, on real parts: the runner is the
// service's own main in a process of its own, its box a real one (namespaces,
// Playwright, Chromium), Postgres, the pg bus. Every process of the box dies
// with the runner, by pid, and the lease runs out so another runner takes the
// shard, or lists the version.
jest.setTimeout(180_000);

const LEASE_SECONDS = 3;

/** A process as /proc shows it: its parent, and its start time (a pid used again is another process). */
function processes(): Map<number, { ppid: number; start: string; cmdline: string }> {
  const all = new Map<number, { ppid: number; start: string; cmdline: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      all.set(Number(name), { ppid: Number(fields[1]), start: fields[19]!, cmdline });
    } catch {
      // Gone while read.
    }
  }
  return all;
}

/** Every process under `root` (not itself), with its start time. */
function descendants(root: number): Map<number, { start: string; cmdline: string }> {
  const all = processes();
  const found = new Map<number, { start: string; cmdline: string }>();
  const walk = (pid: number) => {
    for (const [child, p] of all) {
      if (p.ppid !== pid || found.has(child)) continue;
      found.set(child, { start: p.start, cmdline: p.cmdline });
      walk(child);
    }
  };
  walk(root);
  return found;
}

function alive(pids: Map<number, { start: string }>): number[] {
  const now = processes();
  return [...pids].filter(([pid, p]) => now.get(pid)?.start === p.start).map(([pid]) => pid);
}

describe('a runner killed while its suite shard runs', () => {
  const h = useHarness(() => startSuitesHarness({ shardRunners: 0 }));

  it('takes its box with it (every process, by pid), and the shard goes to another runner when its lease runs out', async () => {
    const { proc: child } = await h.startRunnerProcess({ RUNNER_LEASE_SECONDS: String(LEASE_SECONDS) });
    const t = h.tenant();
    const projectId = await t.project();
    const up = await t.upload({ project_id: projectId, name: 'sleeper' }, packSuite('sleeper'));
    expect(up.status).toBe(201);
    const run = await t.ex('POST', '/api/v1/executions/async', { project_id: projectId, suite_id: up.body.id });
    expect(run.status).toBe(202);
    const id = run.body.id as string;

    // The box runs the test: Playwright, its worker and a Chromium with a page, all under the runner.
    const box = await eventually(async () => {
      const under = descendants(child.pid!);
      return [...under.values()].some((p) => p.cmdline.includes('--type=renderer')) ? under : undefined;
    }, 120_000, 200);
    const held = await h.database.db.selectFrom('suite_shards').select(['status', 'lease_owner', 'attempts']).where('execution_id', '=', id).executeTakeFirstOrThrow();
    expect(held).toMatchObject({ status: 'running', attempts: 1, lease_owner: expect.stringMatching(new RegExp(`-${child.pid}-suites$`)) });
    expect(box.size).toBeGreaterThan(3);

    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    // The box's processes go with it, at once (the test sleeps for two minutes).
    await eventually(async () => alive(box).length === 0, 10_000, 100).catch(() => {
      throw new Error(`box processes still alive 10 s after their runner was killed: ${alive(box).map((pid) => `${pid} ${box.get(pid)!.cmdline.slice(0, 120)}`).join('; ')}`);
    });

    // Nobody renews the shard's lease now: another runner's reaper hands it back to the queue and a runner takes it.
    const other = await h.startShardRunner();
    const retaken = await eventually(async () => {
      await other.reap();
      const s = await h.database.db.selectFrom('suite_shards').select(['status', 'lease_owner', 'attempts']).where('execution_id', '=', id).executeTakeFirstOrThrow();
      return s.attempts === 2 && s.status === 'running' ? s : undefined;
    }, 60_000, 500);
    expect(retaken.lease_owner).not.toBe(held.lease_owner);
    expect((await h.events('suite.shard.requested')).map((e) => e.data)).toEqual([
      { execution_id: id, shard: 0, attempt: 1 },
      { execution_id: id, shard: 0, attempt: 2 },
    ]);
    // Its second attempt would sleep two minutes too: cancelled (its box stops, and the harness waits for it).
    const cancelled = await t.ex('DELETE', `/api/v1/executions/${id}`);
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    // Its shard is closed, not left running for the reaper to hand out again (it stayed queued for ever).
    const shard = () => h.database.db.selectFrom('suite_shards').select(['status', 'lease_owner', 'error']).where('execution_id', '=', id).executeTakeFirstOrThrow();
    expect(await eventually(async () => ((await shard()).status === 'done' ? shard() : undefined), 30_000, 200)).toEqual({ status: 'done', lease_owner: null, error: 'The run was cancelled' });
    await other.reap();
    expect(await shard()).toMatchObject({ status: 'done', lease_owner: null });
    expect((await h.events('suite.shard.requested')).length).toBe(2);
  });

  it('closes the queued shards of a cancelled run, so none is handed out again', async () => {
    const t = h.tenant();
    const projectId = await t.project();
    const up = await t.upload({ project_id: projectId, name: 'sleeper queued' }, packSuite('sleeper'));
    // Cancelled at once: a shard no runner took yet stays queued (claims refuse a cancelled run), one taken is stopped.
    const run = await t.ex('POST', '/api/v1/executions/async', { project_id: projectId, suite_id: up.body.id });
    expect(run.status).toBe(202);
    const id = run.body.id as string;
    await t.ex('DELETE', `/api/v1/executions/${id}`);
    const reaper = await h.startShardRunner();
    const shards = await eventually(async () => {
      await reaper.reap();
      const rows = await h.database.db.selectFrom('suite_shards').select(['shard', 'status', 'error']).where('execution_id', '=', id).orderBy('shard').execute();
      return rows.every((r) => r.status === 'done') ? rows : undefined;
    }, 30_000, 200);
    expect(shards).toEqual([{ shard: 0, status: 'done', error: 'The run was cancelled' }]);
  });
});

describe('a runner killed while it lists an upload', () => {
  // The runner that receives uploads cannot list them (as the chart's runner pods): suite-shard processes do.
  const h = useHarness(() => startSuitesHarness({ shardRunners: 0, listOnUpload: false }));

  it('leaves the version to another runner once the listing lease runs out, which lists it', async () => {
    // A listing lease of 5 + 2 s: the listing's bound plus the runner's lease.
    const { proc: child } = await h.startRunnerProcess({ RUNNER_LEASE_SECONDS: '2', SUITE_LIST_TIMEOUT_SECONDS: '5' });
    const t = h.tenant();
    const projectId = await t.project();
    const up = await t.upload({ project_id: projectId, name: 'shop e2e' }, packSuite('shop'));
    expect(up.status).toBe(202);
    const version = () => h.database.db.selectFrom('suite_versions').select(['status', 'lease_owner', 'attempts', 'error']).where('id', '=', up.body.version.id).executeTakeFirstOrThrow();
    // Killed as soon as it holds the listing (its box takes seconds to list).
    const held = await eventually(async () => {
      const v = await version();
      return v.lease_owner ? v : undefined;
    }, 60_000, 20);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(held).toMatchObject({ status: 'listing', attempts: 1, lease_owner: expect.stringMatching(new RegExp(`-${child.pid}-suites$`)) });
    expect(await version()).toMatchObject({ status: 'listing', lease_owner: held.lease_owner });

    // Another runner's reaper finds the lease run out, hands the listing out once more, and that runner lists it.
    const other = await h.startShardRunner();
    const listed = await eventually(async () => {
      await other.reap();
      const v = await version();
      return v.status === 'listing' ? undefined : v;
    }, 90_000, 500);
    expect(listed).toEqual({ status: 'ready', lease_owner: null, attempts: 2, error: null });
    expect((await h.events('suite.list.requested')).map((e) => e.data)).toEqual([
      { suite_version_id: up.body.version.id, attempt: 1 },
      { suite_version_id: up.body.version.id, attempt: 2 },
    ]);
    const v = await t.ex('GET', `/api/v1/suites/${up.body.id}/versions/1`);
    expect(v.body).toMatchObject({ status: 'ready', total_tests: 6 });
  });
});
