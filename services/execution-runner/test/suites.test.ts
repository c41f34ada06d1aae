import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { useHarness } from '@assay/testing';
import { packSuite, startSuitesHarness } from './suites-harness.js';

// Playwright suites end to end on real parts: an archive uploaded, listed in a
// box, run in boxes by two shard runners (replicas) against the shop, its
// results, attempts, steps, traces, stream and events read back.
jest.setTimeout(240_000);

describe('Playwright suites', () => {
  const h = useHarness(() => startSuitesHarness({ shardRunners: 2 }));

  it('stores an uploaded suite as a version with the tests Playwright lists in its Chromium projects', async () => {
    const t = h.tenant();
    const projectId = await t.project();
    const first = await t.upload({ project_id: projectId, name: 'shop e2e' }, packSuite('shop'));
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ project_id: projectId, name: 'shop e2e', latest_version: 1, version: { version: 1, format: 'tar.gz', config_file: 'playwright.config.ts', dependencies: 'runner', fully_parallel: true, total_tests: 6 } });
    // The firefox project is not run: the runner has Chromium only.
    expect(new Set(first.body.version.tests.map((x: any) => x.project))).toEqual(new Set(['chromium']));
    expect(first.body.version.tests.map((x: any) => x.title)).toEqual(['shows its title on the home page', 'signs a user in', 'lists products', 'finds a heading that is not there', 'passes on its second attempt', 'is skipped']);
    expect(first.body.version.tests[1]).toMatchObject({ file: 'shop.spec.ts', line: 12, title_path: ['the shop', 'signs a user in'] });

    const zip = await t.upload({ project_id: projectId, name: 'shop e2e' }, packSuite('shop', 'zip'), 'suite.zip');
    expect(zip.status).toBe(201);
    expect(zip.body).toMatchObject({ id: first.body.id, latest_version: 2, version: { version: 2, format: 'zip', total_tests: 6 } });
    // The same test keeps its id across versions: its history follows it.
    expect(zip.body.version.tests.map((x: any) => x.id)).toEqual(first.body.version.tests.map((x: any) => x.id));
    const versions = await t.ex('GET', `/api/v1/suites/${first.body.id}/versions`);
    expect(versions.body.data.map((v: any) => v.version)).toEqual([2, 1]);
    expect(versions.body.pagination.total).toBe(2);
    const v1 = await t.ex('GET', `/api/v1/suites/${first.body.id}/versions/1`);
    expect(v1.body).toMatchObject({ version: 1, format: 'tar.gz', total_tests: 6 });
    const list = await t.ex('GET', `/api/v1/suites?project_id=${projectId}`);
    expect(list.body.data.map((s: any) => s.name)).toEqual(['shop e2e']);
    // Another organization sees none of it.
    const other = h.tenant();
    expect((await other.ex('GET', `/api/v1/suites/${first.body.id}`)).status).toBe(404);
    expect((await other.ex('GET', `/api/v1/suites/${first.body.id}/versions`)).status).toBe(404);
    expect((await other.ex('GET', `/api/v1/suites?project_id=${projectId}`)).status).toBe(404);
    expect((await other.ex('POST', '/api/v1/executions', { project_id: projectId, suite_id: first.body.id })).status).toBe(404);

    // Bad uploads change nothing: no archive, not multipart, not an archive, a suite Playwright cannot load, unmet dependencies.
    const bad = async (fields: Record<string, string>, archive: Buffer | undefined) => (await t.upload(fields, archive)).body;
    expect(await bad({ project_id: projectId, name: 'x' }, undefined)).toMatchObject({ error: 'validation_error', details: [{ field: 'archive' }] });
    expect((await t.ex('POST', '/api/v1/suites', { project_id: projectId, name: 'x' })).status).toBe(415);
    expect(await bad({ project_id: projectId, name: 'x' }, Buffer.from('hello'))).toMatchObject({ error: 'validation_error', message: expect.stringMatching(/neither a .tar.gz nor a .zip/) });
    expect(await bad({ project_id: projectId, name: '' }, packSuite('shop'))).toMatchObject({ error: 'validation_error', details: [{ field: 'name' }] });
    expect((await t.upload({ project_id: '00000000-0000-4000-8000-000000000000', name: 'x' }, packSuite('shop'))).status).toBe(404);
    const broken = await bad({ project_id: projectId, name: 'broken' }, packSuite('broken'));
    expect(broken).toMatchObject({ error: 'validation_error', message: expect.stringMatching(/Playwright Test could not list its tests/) });
    expect(broken.message).toMatch(/broken\.spec\.ts/);
    const deps = await bad({ project_id: projectId, name: 'deps' }, packSuite('needs-deps'));
    expect(deps.message).toMatch(/depends on left-pad, which the archive's node_modules does not hold/);
    const names = (await t.ex('GET', `/api/v1/suites?project_id=${projectId}`)).body.data.map((s: any) => s.name);
    expect(names).toEqual(['shop e2e']);
  });

  it('runs a suite in two shards: each test a result with its steps, attempts, flaky after a retry, output and a trace', async () => {
    const t = h.tenant();
    const projectId = await t.project();
    const up = await t.upload({ project_id: projectId, name: 'shop e2e' }, packSuite('shop'));
    expect(up.status).toBe(201);
    const run = await t.ex('POST', '/api/v1/executions', { project_id: projectId, suite_id: up.body.id, shards: 2, retries: 1 });
    expect(run.status).toBe(200);
    expect(run.body.error).toBeNull();
    expect(run.body).toMatchObject({ kind: 'suite', status: 'completed', total_tests: 6, passed_tests: 4, failed_tests: 1, skipped_tests: 1, outcome: 'failed' });
    const byTitle = new Map<string, any>(run.body.results.test_results.map((r: any) => [r.suite_test.title_path.at(-1), r]));
    expect(byTitle.get('shows its title on the home page')).toMatchObject({ status: 'passed', flaky: false, retries: 0 });
    const flaky = byTitle.get('passes on its second attempt');
    expect(flaky).toMatchObject({ status: 'passed', flaky: true, retries: 1, suite_test: { outcome: 'flaky' } });
    expect(flaky.suite_test.attempts.map((a: any) => a.status)).toEqual(['failed', 'passed']);
    expect(flaky.suite_test.attempts[0].error).toMatch(/the first attempt fails/);
    const failed = byTitle.get('finds a heading that is not there');
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/toHaveText/);
    expect(failed.error).toMatch(/Another Shop/);
    expect(failed.suite_test.attempts).toHaveLength(2);
    expect(byTitle.get('is skipped')).toMatchObject({ status: 'skipped' });

    // test.step and the Playwright calls inside it, in order.
    const signIn = byTitle.get('signs a user in');
    const names = signIn.steps.map((s: any) => `${s.category}:${s.name}`);
    expect(names).toEqual(expect.arrayContaining(['test.step:open the sign-in page', 'test.step:sign in', 'pw:api:Click', 'expect:Expect "toContainText"']));
    expect(names.indexOf('test.step:open the sign-in page')).toBeLessThan(names.indexOf('test.step:sign in'));
    expect(signIn.steps.some((s: any) => s.category === 'pw:api' && s.depth === 1 && /Navigate|goto/.test(s.name))).toBe(true);
    expect(signIn.suite_test.stdout).toContain('signed in as user@shop.test');

    // Every test that ran has its trace, a Playwright trace zip the console's viewer opens.
    expect(signIn.trace).toMatch(/^http:\/\/assay\.test\/api\/v1\/artifacts\//);
    const zip = await t.ex('GET', new URL(signIn.trace).pathname);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(Object.keys(unzipSync(zip.body)).some((f) => f.endsWith('.trace'))).toBe(true);

    // Both shards ran, each from the queue; the stream and events are a case run's.
    const shards = await h.database.db.selectFrom('suite_shards').selectAll().where('execution_id', '=', run.body.id).orderBy('shard').execute();
    expect(shards.map((s) => s.status)).toEqual(['done', 'done']);
    const units = await h.database.db.selectFrom('suite_units').select('shard').where('execution_id', '=', run.body.id).execute();
    expect(units.every((u) => u.shard === 0 || u.shard === 1)).toBe(true);
    const stream = await t.ex('GET', `/api/v1/executions/${run.body.id}/stream`);
    expect(stream.body).toContain('event: test_finished');
    expect(stream.body).toMatch(/"flaky":true/);
    expect(stream.body).toContain('event: completed');
    const events = (await h.events()).filter((e) => e.organization_id === t.orgId);
    expect(events.filter((e) => e.event === 'test.execution.completed')).toHaveLength(5);
    const failedEvent = events.find((e) => e.event === 'test.execution.failed');
    expect(failedEvent.data.execution).toMatchObject({ test_case_id: failed.test_id, status: 'failed', error: { type: 'assertion_failed' } });
    expect(events.find((e) => e.event === 'test.plan.completed').data.test_plan.summary).toMatchObject({ total: 6, passed: 4, failed: 1, skipped: 1 });

    // The suite page: last runs, flaky and slowest tests.
    const page = await t.ex('GET', `/api/v1/suites/${up.body.id}`);
    expect(page.body.last_runs[0]).toMatchObject({ id: run.body.id, status: 'completed', shards: 2 });
    expect(page.body.flaky_tests.map((x: any) => x.name)).toContain('the shop › passes on its second attempt');
    expect(page.body.slowest_tests).toHaveLength(5);

    // A re-run of what failed or did not run: those tests only, the same version and options.
    const again = await t.ex('POST', `/api/v1/executions/${run.body.id}/rerun`, {});
    expect(again.status).toBe(202);
    expect(again.body.rerun_of).toBe(run.body.id);
    let rerun: any;
    for (let i = 0; i < 240 && !['completed', 'failed'].includes(rerun?.status); i++) {
      await new Promise((r) => setTimeout(r, 500));
      rerun = (await t.ex('GET', `/api/v1/executions/${again.body.id}`)).body;
    }
    expect(rerun).toMatchObject({ kind: 'suite', status: 'completed', total_tests: 2, failed_tests: 1, skipped_tests: 1, rerun_of: run.body.id });
    expect(rerun.results.test_results.map((r: any) => r.test_id).sort()).toEqual([failed.test_id, byTitle.get('is skipped').test_id].sort());
    // Suite runs are listed with the project's executions.
    const listed = await t.ex('GET', `/api/v1/executions?project_id=${projectId}`);
    expect(listed.body.data.map((e: any) => e.id)).toEqual([again.body.id, run.body.id]);
  });

  it('keeps the trace of each test when two tests share an output folder (titles that differ by a slash) and the suite asks for no output kept', async () => {
    const t = h.tenant();
    const projectId = await t.project();
    const up = await t.upload({ project_id: projectId, name: 'twins' }, packSuite('twins'));
    expect(up.status).toBe(201);
    const run = await t.ex('POST', '/api/v1/executions', { project_id: projectId, suite_id: up.body.id });
    expect(run.body).toMatchObject({ status: 'completed', total_tests: 2, passed_tests: 2 });
    const traces = run.body.results.test_results.map((r: any) => r.trace);
    // Before, the second test's start emptied the folder before the first one's trace was read: it had none.
    expect(traces).toEqual([expect.stringMatching(/\/api\/v1\/artifacts\//), expect.stringMatching(/\/api\/v1\/artifacts\//)]);
    expect(new Set(traces).size).toBe(2);
    for (const trace of traces) {
      const zip = await t.ex('GET', new URL(trace).pathname);
      expect(Object.keys(unzipSync(zip.body)).some((f) => f.endsWith('.trace'))).toBe(true);
    }
  });

  it('keeps a suite in its box: no service secret, no other process, no write outside its directory, no way out but the proxy', async () => {
    const t = h.tenant();
    // A canary among the runner's own variables, and a directory of the host anyone may write to.
    const canary = `canary-${randomBytes(12).toString('hex')}`;
    process.env.ASSAY_BOX_CANARY = canary;
    const outside = mkdtempSync(path.join(tmpdir(), 'outside-box-'));
    chmodSync(outside, 0o777);
    try {
      const projectId = await t.project(`${h.shopUrl}/?runner_pid=${process.pid}&outside=${encodeURIComponent(outside)}`);
      const up = await t.upload({ project_id: projectId, name: 'escape' }, packSuite('escape'));
      expect(up.status).toBe(201);
      const run = await t.ex('POST', '/api/v1/executions', { project_id: projectId, suite_id: up.body.id });
      expect(run.body).toMatchObject({ status: 'completed', passed_tests: 5, failed_tests: 0 });
      const out = (title: string, tag: string) => {
        const r = run.body.results.test_results.find((x: any) => x.suite_test.title_path.at(-1) === title);
        const line = String(r.suite_test.stdout).split('\n').find((l: string) => l.startsWith(`${tag} `));
        return JSON.parse(line!.slice(tag.length + 1));
      };
      // Its environment: none of the runner's variables (the canary, DATABASE_URL, ...), only what the box gives.
      const env = out('reads its environment', 'ENV') as Record<string, string>;
      expect(JSON.stringify(env)).not.toContain(canary);
      const runnerVars = new Set(Object.keys(process.env));
      for (const k of Object.keys(env).filter((k) => runnerVars.has(k))) expect(['PATH', 'HOME', 'CI', 'NODE_ENV', 'TMPDIR', 'FORCE_COLOR']).toContain(k);
      expect(env).not.toHaveProperty('ASSAY_BOX_CANARY');
      // Other processes: the runner's pid does not exist in its pid namespace; what it sees of its own box's root is not its to read.
      const environ = out('reads the environment of every process it can name', 'ENVIRON') as string[];
      expect(environ.find((e) => e.startsWith(`/proc/${process.pid}/environ`))).toMatch(/: (ENOENT|EACCES)$/);
      expect(environ.find((e) => e.startsWith('/proc/1/environ'))).toMatch(/: EACCES$/);
      expect(environ.join('\n')).not.toContain(canary);
      // Writes: every place outside its directory refused (read-only or not its own), its own directory writable.
      const writes = out('writes outside its directory', 'WRITES') as string[];
      expect(writes.pop()).toBe('inside: OK ');
      for (const w of writes) expect(w).toMatch(/: (EROFS|EACCES|ENOENT)$/);
      expect(existsSync(path.join(outside, 'assay-escape'))).toBe(false);
      expect(existsSync('/tmp/assay-escape')).toBe(false);
      expect(existsSync(path.join(h.settings.box.workDir, 'assay-escape'))).toBe(false);
      // The network: nothing but the proxy; the page it is given reaches the app through it.
      const net = out('connects out without the proxy', 'NET');
      expect(net.socket).toMatch(/ECONNREFUSED|ENETUNREACH/);
      expect(net.browser).toMatch(/^nothing/);
      const proxied = run.body.results.test_results.find((x: any) => /through the proxy/.test(x.name));
      expect(proxied.suite_test.stdout).toContain('PROXIED 200');
    } finally {
      delete process.env.ASSAY_BOX_CANARY;
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
