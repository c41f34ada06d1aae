import { strFromU8, unzipSync } from 'fflate';
import { eventually, useHarness } from '@assay/testing';
import { credentials, login, startRunnerHarness, PUBLIC_BASE_URL } from './harness.js';

jest.setTimeout(120_000);

const h = useHarness(() => startRunnerHarness({ stepTimeoutMs: 2000 }));
beforeEach(() => h.resetShop());

const artifactId = (url: string) => url.slice(`${PUBLIC_BASE_URL}/api/v1/artifacts/`.length);

describe('executions in Chromium', () => {
  it('runs a plan using all 13 actions synchronously and answers with results', async () => {
    const t = h.tenant();
    const { projectId, planId, caseIds } = await t.plan({
      'Every action': [
        ...login,
        { action: 'navigate', value: '/form' },
        { action: 'fill', selector: '#full-name', value: 'Ada' },
        { action: 'assert_value', selector: '#full-name', value: 'Ada' },
        { action: 'select', selector: '#plan', value: 'pro' },
        { action: 'check', selector: '#newsletter' },
        { action: 'uncheck', selector: '#newsletter' },
        { action: 'click', selector: '#save' },
        { action: 'assert_text', selector: '#saved', value: 'Saved: Ada / pro / newsletter off' },
        { action: 'navigate', value: '/menu' },
        { action: 'hover', selector: '#menu' },
        { action: 'assert_visible', selector: '#submenu-item' },
        { action: 'screenshot', description: 'the open menu' },
        { action: 'navigate', value: '/delayed' },
        { action: 'wait', selector: '#late', timeout: 5000 },
      ],
    });
    const r = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId, variables: credentials });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'completed', passed_tests: 1, failed_tests: 0, total_tests: 1, results: { summary: { total: 1, passed: 1, failed: 0, skipped: 0 } } });
    const [result] = r.body.results.test_results;
    expect(result).toMatchObject({ test_id: caseIds[0], name: 'Every action', status: 'passed' });
    expect(result.steps).toHaveLength(19);
    expect(result.steps.every((s: { status: string }) => s.status === 'passed')).toBe(true);
    const shot = result.steps.find((s: { name: string }) => s.name === 'the open menu');
    expect(shot.screenshot).toMatch(new RegExp(`^${PUBLIC_BASE_URL}/api/v1/artifacts/`));
    const png = await t.ex('GET', `/api/v1/artifacts/${artifactId(shot.screenshot)}`);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect((png.body as Buffer).subarray(0, 4).toString('hex')).toBe('89504e47');
    expect((await h.tenant().ex('GET', `/api/v1/artifacts/${artifactId(shot.screenshot)}`)).status).toBe(404);
  });

  it('fails a test at the failing step with a clear error, a PNG, skipped steps and the spec’s failed event', async () => {
    const t = h.tenant();
    const { projectId, planId, caseIds } = await t.plan({
      'Cart total': [
        { action: 'navigate', value: '/products/1' },
        { action: 'click', selector: '#add-to-cart', description: 'add red shoes' },
        { action: 'assert_text', selector: '#cart-count', value: '1' },
        { action: 'navigate', value: '/cart' },
        { action: 'assert_text', selector: '#total', value: 'Total: $25' },
        { action: 'click', selector: '#checkout' },
      ],
      'Missing button': [
        { action: 'navigate', value: '/' },
        { action: 'click', selector: '#nope' },
      ],
    });
    const r = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    expect(r.body).toMatchObject({ status: 'completed', passed_tests: 0, failed_tests: 2 });
    const [cart, missing] = r.body.results.test_results;
    expect(cart.error).toBe('Expected text "Total: $25" but found "Total: $20"');
    expect(cart.steps.map((s: { status: string }) => s.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'failed', 'skipped']);
    expect(cart.screenshot).toMatch(/^http:\/\/assay\.test\/api\/v1\/artifacts\//);
    expect(cart.steps[4].screenshot).toBe(cart.screenshot);
    expect(missing.error).toBe('Element not found: #nope (waited 2000 ms)');

    const failed = (await h.events('test.execution.failed')).find((e) => e.data.execution.test_case_id === caseIds[0]);
    expect(failed.data.execution).toMatchObject({
      id: r.body.id,
      test_case_name: 'Cart total',
      project_id: projectId,
      project_name: 'Shop',
      environment: null,
      status: 'failed',
      priority: 'medium',
      error: { message: 'Expected text "Total: $25" but found "Total: $20"', type: 'assertion_failed', step: 5, step_description: 'assert_text #total' },
      screenshots: [cart.screenshot],
      url: `${PUBLIC_BASE_URL}/api/v1/executions/${r.body.id}`,
    });
    expect(failed.data.environment).toMatchObject({ viewport: '1280x720', url: `${h.shopUrl}/cart`, browser: expect.stringMatching(/^chromium /) });
    expect(failed.data.diagnostics.page_url).toBe(`${h.shopUrl}/cart`);
    expect(failed.data.diagnostics.html).toContain('id="total"');
    expect(failed.data.diagnostics.fingerprints.find((f: { selector: string }) => f.selector === '#add-to-cart').fingerprint).toMatchObject({ tag: 'button', id: 'add-to-cart' });

    const completed = (await h.events('test.plan.completed')).find((e) => e.data.execution_id === r.body.id);
    expect(completed.data.test_plan.summary).toEqual({ total: 2, passed: 0, failed: 2, skipped: 0, pass_rate: 0 });
    expect(completed.data.test_plan.environment).toBeNull();
    expect(completed.data.test_plan.failed_tests.map((f: { name: string }) => f.name).sort()).toEqual(['Cart total', 'Missing button']);
  });

  it('runs asynchronously with a polling URL, progress and results', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({ a: [{ action: 'navigate', value: '/delayed' }, { action: 'wait', selector: '#late', timeout: 5000 }], b: [{ action: 'navigate', value: '/about' }] });
    const queued = await t.ex('POST', '/api/v1/executions/async', { test_plan_id: planId, project_id: projectId });
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ id: expect.any(String), status: 'queued', estimated_wait_seconds: expect.any(Number), polling_url: `/api/v1/executions/${queued.body.id}/status` });
    const running = await t.ex('GET', queued.body.polling_url);
    expect(running.body).toMatchObject({ id: queued.body.id, progress: { total: 2 } });
    expect(['queued', 'pending', 'running']).toContain(running.body.status);
    const done = await eventually(async () => {
      const s = await t.ex('GET', queued.body.polling_url);
      return s.body.status === 'completed' ? s.body : undefined;
    }, 30_000);
    expect(done).toEqual({ id: queued.body.id, status: 'completed', passed_tests: 2, failed_tests: 0, total_tests: 2, duration_seconds: expect.any(Number), completed_at: expect.any(String) });
    const results = await t.ex('GET', `/api/v1/executions/${queued.body.id}/results`);
    expect(results.body.test_results.map((x: { status: string }) => x.status)).toEqual(['passed', 'passed']);
    const list = await t.ex('GET', `/api/v1/executions?project_id=${projectId}&status=completed`);
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([queued.body.id]);
    expect(list.body.pagination).toEqual({ limit: 20, offset: 0, total: 1 });
  });

  it('uses the environment’s base URL and variables, and fails a step on an unknown variable', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan(
      { login, unknown: [{ action: 'navigate', value: '/login' }, { action: 'fill', selector: '#email', value: '{{nobody}}' }] },
      { base_url: 'http://127.0.0.1:9', environments: { staging: h.shopUrl } },
    );
    const r = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId, environment: 'staging', variables: credentials });
    expect(r.body.base_url).toBe(h.shopUrl);
    // The run's environment travels in its events (webhook environment rules match it).
    const started = (await h.events('test.plan.started')).find((e) => e.data.execution_id === r.body.id);
    expect(started.data.test_plan.environment).toBe('staging');
    const passed = (await h.events('test.execution.passed')).find((e) => e.data.execution.id === r.body.id);
    expect(passed.data.execution.environment).toBe('staging');
    const [ok, unknown] = r.body.results.test_results;
    expect(ok.status).toBe('passed');
    expect(unknown.error).toBe('Unknown variable {{nobody}}: pass it in "variables"');
    const bad = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId, environment: 'prod' });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: 'environment', message: 'must be one of staging' }]);
  });

  it('cancels a running execution within seconds and refuses to cancel it twice', async () => {
    const t = h.tenant();
    const slow = Array.from({ length: 6 }, () => [{ action: 'navigate', value: '/slow' }]);
    const { projectId, planId } = await t.plan(Object.fromEntries(slow.map((s, i) => [`slow ${i}`, s])));
    const queued = await t.ex('POST', '/api/v1/executions/async', { test_plan_id: planId, project_id: projectId });
    // Cancel once a case is in the browser, not merely once the execution is marked running.
    await eventually(
      async () =>
        (await h.database.db.selectFrom('test_results').select('status').where('execution_id', '=', queued.body.id).where('status', '=', 'running').execute()).length > 0,
      20_000,
    );
    const cancelled = await t.ex('DELETE', `/api/v1/executions/${queued.body.id}`);
    expect(cancelled.body).toEqual({ id: queued.body.id, status: 'cancelled', cancellation_reason: 'requested', cancelled_at: expect.any(String) });
    const stoppedAt = Date.now();
    // The cases in flight load /slow (3 s): only a cancel that closes their browser contexts ends them sooner.
    const rows = await eventually(async () => {
      const results = await h.database.db.selectFrom('test_results').select(['status', 'error']).where('execution_id', '=', queued.body.id).execute();
      return results.every((r) => r.status !== 'running' && r.status !== 'pending') ? results : undefined;
    }, 10_000);
    expect(Date.now() - stoppedAt).toBeLessThan(2500);
    expect(rows.filter((r) => r.status === 'passed')).toEqual([]);
    const interrupted = rows.filter((r) => r.status === 'failed');
    expect(interrupted.length).toBeGreaterThan(0);
    expect(interrupted.every((r) => r.error === 'Execution was cancelled')).toBe(true);
    expect(rows.filter((r) => r.status === 'skipped').length).toBe(6 - interrupted.length);
    expect((await t.ex('GET', queued.body.polling_url)).body.status).toBe('cancelled');
    expect((await t.ex('DELETE', `/api/v1/executions/${queued.body.id}`)).status).toBe(409);
  });

  it('fails an execution past timeout_seconds, keeps partial results and emits test.execution.timeout', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({ quick: [{ action: 'navigate', value: '/about' }], slow1: [{ action: 'navigate', value: '/slow' }], slow2: [{ action: 'navigate', value: '/slow' }], slow3: [{ action: 'navigate', value: '/slow' }] });
    const r = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId, timeout_seconds: 2 });
    expect(r.body).toMatchObject({ status: 'failed', error: 'Timed out after 2 s' });
    const statuses = r.body.results.test_results.map((x: { status: string }) => x.status);
    expect(statuses[0]).toBe('passed');
    expect(statuses).toContain('skipped');
    const timeout = (await h.events('test.execution.timeout')).find((e) => e.data.execution_id === r.body.id);
    expect(timeout.data.partial_results).toMatchObject({ total: 4, passed: 1 });
  });

  it('streams the run as Server-Sent Events and resumes after Last-Event-ID', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({ one: [{ action: 'navigate', value: '/' }, { action: 'assert_visible', selector: '#title' }] });
    const queued = await t.ex('POST', '/api/v1/executions/async', { test_plan_id: planId, project_id: projectId });
    const first = await t.ex('GET', `/api/v1/executions/${queued.body.id}/stream`);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = [...(first.body as string).matchAll(/id: (\d+)\nevent: (\w+)\ndata: (.*)\n/g)].map((m) => ({ id: Number(m[1]), event: m[2], data: JSON.parse(m[3]!) }));
    expect(events.map((e) => e.event)).toEqual(['status', 'status', 'test_started', 'step_finished', 'step_finished', 'test_finished', 'completed']);
    expect(events.at(-1)!.data).toMatchObject({ execution_id: queued.body.id, status: 'completed', passed_tests: 1 });
    const resumed = await t.ex('GET', `/api/v1/executions/${queued.body.id}/stream`, undefined, { 'last-event-id': String(events[4]!.id) });
    expect([...(resumed.body as string).matchAll(/event: (\w+)/g)].map((m) => m[1])).toEqual(['test_finished', 'completed']);
  });

  it('runs two executions at once and keeps other organizations out', async () => {
    const a = h.tenant();
    const b = h.tenant();
    const pa = await a.plan({ x: [{ action: 'navigate', value: '/delayed' }, { action: 'wait', selector: '#late', timeout: 5000 }] });
    const pb = await b.plan({ y: [{ action: 'navigate', value: '/delayed' }, { action: 'wait', selector: '#late', timeout: 5000 }] });
    const [ra, rb] = await Promise.all([
      a.ex('POST', '/api/v1/executions', { test_plan_id: pa.planId, project_id: pa.projectId }),
      b.ex('POST', '/api/v1/executions', { test_plan_id: pb.planId, project_id: pb.projectId }),
    ]);
    expect([ra.body.status, rb.body.status]).toEqual(['completed', 'completed']);
    // Both ran in parallel: their runs overlap in time.
    expect(Date.parse(ra.body.started_at)).toBeLessThan(Date.parse(rb.body.completed_at));
    expect(Date.parse(rb.body.started_at)).toBeLessThan(Date.parse(ra.body.completed_at));
    for (const [method, path] of [['GET', `/api/v1/executions/${ra.body.id}`], ['GET', `/api/v1/executions/${ra.body.id}/status`], ['GET', `/api/v1/executions/${ra.body.id}/results`], ['GET', `/api/v1/executions/${ra.body.id}/stream`], ['DELETE', `/api/v1/executions/${ra.body.id}`]] as const) {
      expect((await b.ex(method, path)).status).toBe(404);
    }
    expect((await b.ex('POST', '/api/v1/executions', { test_plan_id: pa.planId, project_id: pa.projectId })).status).toBe(404);
    expect(await b.ex('GET', `/api/v1/executions?project_id=${pa.projectId}`)).toMatchObject({ status: 404, body: { error: 'not_found', message: 'Project not found' } });
  });

  it('keeps a Playwright trace of the failed case only with trace retain-on-failure, and none by default', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({
      Passing: [
        { action: 'navigate', value: '/products' },
        { action: 'assert_visible', selector: '#q' },
      ],
      Failing: [
        { action: 'navigate', value: '/products' },
        { action: 'fill', selector: '#q', value: 'shoes' },
        { action: 'click', selector: '#nope' },
        { action: 'assert_visible', selector: '#q' },
      ],
    });
    const r = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId, trace: 'retain-on-failure' });
    expect(r.body).toMatchObject({ status: 'completed', trace: 'retain-on-failure', passed_tests: 1, failed_tests: 1 });
    const [passing, failing] = r.body.results.test_results;
    expect(passing.trace).toBeUndefined();
    expect(failing.trace).toMatch(new RegExp(`^${PUBLIC_BASE_URL}/api/v1/artifacts/`));
    const zip = await t.ex('GET', `/api/v1/artifacts/${artifactId(failing.trace)}`);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const bytes = zip.body as Buffer;
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    // Entry names sit uncompressed in the zip: the trace holds the actions and the network log.
    expect(bytes.includes(Buffer.from('trace.trace'))).toBe(true);
    expect(bytes.includes(Buffer.from('trace.network'))).toBe(true);
    // The trace viewer lists the case's steps: one named group per step, Playwright's calls inside, the failing one marked.
    const calls = strFromU8(unzipSync(new Uint8Array(bytes))['trace.trace']!)
      .split('\n')
      .filter((l) => l.includes('"type":"before"'))
      .map((l) => JSON.parse(l) as { callId: string; method: string; title?: string; parentId?: string });
    const groups = calls.filter((c) => c.method === 'tracingGroup');
    expect(groups.map((g) => g.title)).toEqual([
      'Step 1 of 4 · navigate /products',
      'Step 2 of 4 · fill #q',
      'Step 3 of 4 · click #nope',
      '✗ Failed: Element not found: #nope (waited 2000 ms)',
      'Step 4 of 4 · assert_visible #q (skipped)',
    ]);
    const [navigateGroup, fillGroup, clickGroup, marker] = groups;
    expect(marker!.parentId).toBe(clickGroup!.callId);
    expect(calls.find((c) => c.method === 'goto')?.parentId).toBe(navigateGroup!.callId);
    expect(calls.find((c) => c.method === 'fill')?.parentId).toBe(fillGroup!.callId);
    expect([navigateGroup, fillGroup, clickGroup, groups[4]].map((g) => g!.parentId)).toEqual([undefined, undefined, undefined, undefined]);
    expect((await h.tenant().ex('GET', `/api/v1/artifacts/${artifactId(failing.trace)}`)).status).toBe(404);
    const failed = (await h.events('test.execution.failed')).find((e) => e.data.execution.id === r.body.id);
    expect(failed.data.execution.trace).toBe(failing.trace);

    const plain = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    expect(plain.body.trace).toBe('off');
    expect(plain.body.results.test_results.map((x: { trace?: string }) => x.trace)).toEqual([undefined, undefined]);
  });

  it('refuses bad requests with 400 naming the field', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({ x: [{ action: 'navigate', value: '/' }] });
    const cases: Array<[unknown, string]> = [
      [{ project_id: projectId }, 'test_plan_id'],
      [{ test_plan_id: planId, project_id: projectId, timeout_seconds: 0 }, 'timeout_seconds'],
      [{ test_plan_id: planId, project_id: projectId, variables: { a: 1 } }, 'variables.a'],
      [{ test_plan_id: planId, project_id: projectId, trace: 'always' }, 'trace'],
      [{ test_plan_id: planId, project_id: (await t.plan({ y: [{ action: 'navigate', value: '/' }] })).projectId }, 'project_id'],
    ];
    for (const [body, field] of cases) {
      const r = await t.ex('POST', '/api/v1/executions', body);
      expect(r.status).toBe(400);
      expect(r.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    for (const [q, field] of [['', 'project_id'], [`project_id=${projectId}&limit=101`, 'limit'], [`project_id=${projectId}&status=done`, 'status'], [`project_id=${projectId}&created_after=yesterday`, 'created_after']]) {
      const r = await t.ex('GET', `/api/v1/executions?${q}`);
      expect({ status: r.status, fields: r.body.details.map((d: { field: string }) => d.field) }).toEqual({ status: 400, fields: [field] });
    }
    expect((await t.ex('POST', '/api/v1/executions', { test_plan_id: '00000000-0000-4000-8000-000000000000', project_id: projectId })).status).toBe(404);
  });
});
