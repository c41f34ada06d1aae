import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { eventually, freePortForTests, TEST_INTERNAL_SECRET, useHarness } from '@assay/testing';
import { repoRoot } from '../../../tests/e2e/support/launcher.js';
import { packSuite, startSuitesHarness } from './suites-harness.js';

// A runner killed without a drain (SIGKILL, an OOM kill, a node lost) in the
// middle of a suite shard, on real parts: the runner is the service's own main
// in a process of its own, its box a real one (namespaces, Playwright,
// Chromium). Every process of the box dies with the runner, by pid, and the
// shard's lease runs out so another runner takes it.
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
  let runner: ChildProcess | undefined;

  afterAll(() => {
    if (runner && runner.exitCode === null && runner.signalCode === null) runner.kill('SIGKILL');
  });

  it('takes its box with it (every process, by pid), and the shard goes to another runner when its lease runs out', async () => {
    const port = await freePortForTests();
    const output: string[] = [];
    // The service as a suite-shard pod runs it: no case runner, no scheduler, shards only.
    runner = spawn(process.execPath, ['--import', 'tsx', 'services/execution-runner/src/main.ts'], {
      cwd: repoRoot(),
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: h.databaseUrl,
        INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
        TEST_CASE_URL: h.testCaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        BUS: 'pg',
        RUNNER_ENABLED: 'false',
        SUITE_SHARDS_ENABLED: 'true',
        SCHEDULER_ENABLED: 'false',
        RUNNER_LEASE_SECONDS: String(LEASE_SECONDS),
        SUITE_WORK_DIR: h.settings.box.workDir,
        SUITE_UID_MIN: '10000',
        SUITE_UID_MAX: '65000',
        CHROMIUM_PATH: h.settings.box.chromiumPath,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    runner.stdout!.on('data', (c: Buffer) => output.push(c.toString('utf8')));
    runner.stderr!.on('data', (c: Buffer) => output.push(c.toString('utf8')));
    const child = runner;
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`the runner exited: ${output.join('')}`);
      return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok;
    }, 90_000, 200);

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
  });
});
