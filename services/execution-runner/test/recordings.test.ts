import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { VIEWPORT, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { PRINCIPAL_HEADER, signPrincipal } from '@assay/principal';
import { eventually, TEST_INTERNAL_SECRET } from '@assay/testing';
import { startRunnerHarness, type RunnerHarness, type Tenant } from './harness.js';

// The recorder against the fixture shop: a real page in a real Chromium whose
// input (sent as the console sends it, by coordinates) becomes steps, the
// screencast read from the stream, and the recorded case run by the runner.
jest.setTimeout(120_000);

let h: RunnerHarness;
let measure: Browser;
beforeAll(async () => {
  h = await startRunnerHarness({ recorder: { perOrg: 2 } });
  measure = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await measure?.close();
  await h?.close();
});

/** Where an element's centre is on a page of the recorder's size (same browser, same viewport, same layout). */
async function centre(url: string, selector: string): Promise<{ x: number; y: number }> {
  const page = await measure.newPage({ viewport: VIEWPORT });
  try {
    await page.goto(url);
    const box = (await page.locator(selector).boundingBox())!;
    return { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
  } finally {
    await page.close();
  }
}

/** The events of a Server-Sent Events text, up to where `until` says enough. */
function parse(text: string, until: (events: Array<{ event: string; data: any }>) => boolean) {
  const events: Array<{ event: string; data: any }> = [];
  for (const block of text.split('\n\n')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event && data) events.push({ event, data: JSON.parse(data) });
    if (until(events)) break;
  }
  return events;
}

async function projectOn(t: Tenant): Promise<string> {
  const p = await t.tc('POST', '/api/v1/projects', { name: 'Shop', base_url: h.shopUrl });
  return p.body.id as string;
}

describe('recordings', () => {
  it('records a sign-in on the shop as steps with ranked selectors, and the saved case passes when run', async () => {
    const t = h.tenant();
    const projectId = await projectOn(t);
    const opened = await t.ex('POST', '/api/v1/recordings', { project_id: projectId, start_path: '/login' });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ project_id: projectId, status: 'recording', url: `${h.shopUrl}/login`, viewport: { width: 1280, height: 720 }, steps: [{ action: 'navigate', value: '/login' }] });
    const id = opened.body.id as string;

    // The stream (read with a raw fetch so it can be cut off): the page's address and a JPEG frame of it.
    const ctrl = new AbortController();
    const stream = await fetch(`${h.execUrl}/api/v1/recordings/${id}/stream`, { headers: await headersOf(t), signal: ctrl.signal });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const reader = stream.body!.getReader();
    let text = '';
    await eventually(async () => {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
      return text.includes('event: frame');
    }, 20_000);
    ctrl.abort();
    const frame = parse(text, () => false).find((e) => e.event === 'frame')!;
    expect(frame.data).toMatchObject({ recording_id: id, width: 1280, height: 720 });
    expect(Buffer.from(frame.data.data as string, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));

    const login = `${h.shopUrl}/login`;
    const input = (body: unknown) => t.ex('POST', `/api/v1/recordings/${id}/input`, body);
    // Focusing a field records nothing; what is typed becomes a fill, more typing updates it.
    const focus = await input({ type: 'click', ...(await centre(login, '#email')) });
    expect(focus.status).toBe(200);
    expect(focus.body.recorded).toBeUndefined();
    expect((await input({ type: 'text', text: 'user@shop' })).body.recorded).toMatchObject({ index: 1, updated: false, step: { action: 'fill', value: 'user@shop' } });
    const more = await input({ type: 'text', text: '.test' });
    expect(more.body.recorded).toMatchObject({ index: 1, updated: true, step: { action: 'fill', value: 'user@shop.test' } });
    // The shared ranking: role and accessible name first, the id among the alternatives, each with its stability.
    const email = more.body.recorded.step;
    expect(email.selector).toBe('role=textbox[name="Email"]');
    expect(email.alternatives).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ selector: 'role=textbox[name="Email"]', kind: 'role-name', stability: 'high', matches: 1 }),
        expect.objectContaining({ selector: '#email', kind: 'id', stability: 'medium', matches: 1 }),
        expect.objectContaining({ selector: 'input[name="email"]', kind: 'name', matches: 1 }),
      ]),
    );
    await input({ type: 'click', ...(await centre(login, '#password')) });
    await input({ type: 'text', text: 'secret12' });
    await input({ type: 'key', key: 'Backspace' });
    const typed = await input({ type: 'text', text: '23' });
    expect(typed.body.recorded.step).toMatchObject({ action: 'fill', selector: '#password', value: 'secret123' });
    // Enter submits: a press step on the field, read before the page navigated.
    const enter = await input({ type: 'key', key: 'Enter' });
    expect(enter.body.recorded.step).toMatchObject({ action: 'press', selector: '#password', value: 'Enter' });
    await eventually(async () => (await t.ex('GET', `/api/v1/recordings/${id}`)).body.url === `${h.shopUrl}/dashboard`, 10_000);
    // An assertion: the element under the point, nothing clicked.
    const welcomeAt = await (async () => {
      const page = await measure.newPage({ viewport: VIEWPORT });
      await page.goto(login);
      await page.fill('#email', 'user@shop.test');
      await page.fill('#password', 'secret123');
      await page.click('#submit');
      const box = (await page.locator('#welcome').boundingBox())!;
      await page.close();
      return { x: Math.round(box.x + 5), y: Math.round(box.y + box.height / 2) };
    })();
    const asserted = await input({ type: 'assert', mode: 'text', ...welcomeAt });
    expect(asserted.body.recorded.step).toMatchObject({ action: 'assert_text', value: 'Welcome, user@shop.test' });
    expect(asserted.body.recorded.step.selector).toBe('role=heading[name="Welcome, user@shop.test"]');

    const recording = await t.ex('GET', `/api/v1/recordings/${id}`);
    const steps = (recording.body.steps as Array<Record<string, unknown>>).map(({ alternatives: _a, ...s }) => s);
    expect(steps.map((s) => s.action)).toEqual(['navigate', 'fill', 'fill', 'press', 'assert_text']);
    const stopped = await t.ex('DELETE', `/api/v1/recordings/${id}`);
    expect(stopped.body).toMatchObject({ id, status: 'stopped', ended_reason: 'stopped', url: null });
    expect((await t.ex('GET', `/api/v1/recordings/${id}`)).status).toBe(404);

    // The recorded steps are a valid test case, and it passes.
    const { planId, projectId: runProject } = await t.plan({ 'Recorded sign-in': steps });
    const run = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: runProject });
    expect(run.body.results.test_results[0]).toMatchObject({ status: 'passed' });
  });

  it('records on a real third-party app (TodoMVC from npm): adding, completing and counting todos replay green', async () => {
    // The `todomvc` package: TodoMVC's reference apps with the project's own express server, started here on loopback.
    const todomvc = createRequire(import.meta.url)('todomvc') as { listen(port: number, host: string, cb: () => void): Server };
    const server = await new Promise<Server>((resolve) => {
      const s = todomvc.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/examples/vanillajs`;
      const t = h.tenant();
      const project = await t.tc('POST', '/api/v1/projects', { name: 'TodoMVC', base_url: base });
      const opened = await t.ex('POST', '/api/v1/recordings', { project_id: project.body.id, start_path: '/index.html' });
      expect(opened.status).toBe(201);
      const id = opened.body.id as string;
      const input = async (body: unknown) => {
        const r = await t.ex('POST', `/api/v1/recordings/${id}/input`, body);
        expect(r.status).toBe(200);
        return r.body;
      };
      const app = `${base}/index.html`;
      await input({ type: 'click', ...(await centre(app, '#new-todo')) });
      await input({ type: 'text', text: 'Buy milk' });
      await input({ type: 'key', key: 'Enter' });
      await input({ type: 'text', text: 'Walk the dog' });
      await input({ type: 'key', key: 'Enter' });
      // Where the first todo's checkbox is once two exist: measured on the same app.
      const toggleAt = await (async () => {
        const page = await measure.newPage({ viewport: VIEWPORT });
        await page.goto(app);
        for (const title of ['Buy milk', 'Walk the dog']) {
          await page.fill('#new-todo', title);
          await page.press('#new-todo', 'Enter');
        }
        const toggle = (await page.locator('#todo-list li').first().locator('input.toggle').boundingBox())!;
        await page.locator('#todo-list li').first().locator('input.toggle').check();
        const count = (await page.locator('#todo-count').boundingBox())!;
        await page.close();
        return { toggle: { x: Math.round(toggle.x + toggle.width / 2), y: Math.round(toggle.y + toggle.height / 2) }, count: { x: Math.round(count.x + count.width - 6), y: Math.round(count.y + count.height / 2) } };
      })();
      const checked = await input({ type: 'click', ...toggleAt.toggle });
      expect(checked.recorded.step.action).toBe('check');
      const counted = await input({ type: 'assert', mode: 'text', ...toggleAt.count });
      expect(counted.recorded.step).toMatchObject({ action: 'assert_text', value: '1 item left' });
      const stopped = await t.ex('DELETE', `/api/v1/recordings/${id}`);
      const steps = (stopped.body.steps as Array<Record<string, unknown>>).map(({ alternatives: _a, ...s }) => s);
      expect(steps.map((s) => s.action)).toEqual(['navigate', 'fill', 'press', 'fill', 'press', 'check', 'assert_text']);
      // The new-todo field is named by its placeholder-derived role name or its id, never by position.
      expect(steps[1]!.selector).not.toMatch(/^xpath=\//);
      expect(steps[5]!.selector).toBeDefined();

      const plan = await t.tc('POST', '/api/v1/test-cases', { project_id: project.body.id, name: 'Recorded todos', steps });
      expect(plan.status).toBe(201);
      const planRow = await t.tc('POST', '/api/v1/test-plans', { project_id: project.body.id, name: 'Todos', test_case_ids: [plan.body.id] });
      const run = await t.ex('POST', '/api/v1/executions', { test_plan_id: planRow.body.id, project_id: project.body.id });
      expect(run.body.results.test_results[0]).toMatchObject({ status: 'passed' });
      expect(run.body.results.test_results[0].steps.map((s: { status: string }) => s.status)).toEqual(Array(7).fill('passed'));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("records the labelled control a click means, not a nameless or presentational button inside it, and hangs a nameless one from its surroundings", async () => {
    // An editor's toolbar as widget libraries draw it: a labelled role=button around the real, nameless
    // <button role=presentation> holding an icon; a nameless icon button of its own; a checkbox in its label.
    const page = `<!doctype html><title>Toolbar</title><style>i{display:inline-block;width:20px;height:20px;background:#888}</style>
      <div role="toolbar">
        <div role="button" aria-label="Source code" tabindex="-1" id="w8" onclick="document.title='source'"><button role="presentation" type="button" tabindex="-1" id="w8-button"><i></i></button></div>
        <div role="button" aria-label="Bold" tabindex="-1"><button type="button" id="w9-button"><i></i></button></div>
        <button type="button" id="lone"><i></i></button>
        <div role="button" aria-label="Spelling"><button type="button" id="w10-button">Check spelling</button></div>
      </div>
      <label>Remember me <input type="checkbox" id="remember"></label>
      <div class="head"><div class="col" data-field="title" aria-sort="none">Title <span class="menu-button">=</span></div><div class="col" data-field="price" aria-sort="none">Price <span class="menu-button">=</span></div></div>`;
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const t = h.tenant();
      const project = await t.tc('POST', '/api/v1/projects', { name: 'Toolbar', base_url: base });
      const opened = await t.ex('POST', '/api/v1/recordings', { project_id: project.body.id, start_path: '/' });
      const id = opened.body.id as string;
      const click = async (selector: string) => (await t.ex('POST', `/api/v1/recordings/${id}/input`, { type: 'click', ...(await centre(`${base}/`, selector)) })).body.recorded.step;
      expect(await click('#w8-button')).toMatchObject({ action: 'click', selector: 'role=button[name="Source code"]' });
      expect(await click('#w9-button')).toMatchObject({ action: 'click', selector: 'role=button[name="Bold"]' });
      // Nothing labelled around it: the button itself. A named button inside a labelled one is its own control.
      expect(await click('#lone')).toMatchObject({ action: 'click', selector: '#lone' });
      expect(await click('#w10-button')).toMatchObject({ selector: 'role=button[name="Check spelling"]' });
      expect(await click('#remember')).toMatchObject({ action: 'check' });
      // Nothing of its own tells the second column's menu button from the first's: hung from its column, not a path.
      expect(await click('div[data-field="price"] .menu-button')).toMatchObject({ action: 'click', selector: 'div[data-field="price"] span.menu-button' });
      await t.ex('DELETE', `/api/v1/recordings/${id}`);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('records checks, assertions and selects, refuses bad input, and keeps other organizations out', async () => {
    const t = h.tenant();
    const projectId = await projectOn(t);
    const opened = await t.ex('POST', '/api/v1/recordings', { project_id: projectId, start_path: '/form' });
    const id = opened.body.id as string;
    const form = `${h.shopUrl}/form`;
    const input = (body: unknown) => t.ex('POST', `/api/v1/recordings/${id}/input`, body);
    const check = await input({ type: 'click', ...(await centre(form, '#newsletter')) });
    expect(check.body.recorded.step).toMatchObject({ action: 'check' });
    expect((await input({ type: 'click', ...(await centre(form, '#newsletter')) })).body.recorded.step).toMatchObject({ action: 'uncheck' });
    // A click on a select answers its options; the chosen one is a select step.
    const planAt = await centre(form, '#plan');
    const select = await input({ type: 'click', ...planAt });
    expect(select.body.recorded).toBeUndefined();
    expect(select.body.element.options.map((o: { value: string }) => o.value)).toEqual(['starter', 'growth', 'pro']);
    expect((await input({ type: 'select', ...planAt, value: 'pro' })).body.recorded.step).toMatchObject({ action: 'select', value: 'pro' });
    // A pick names the element without recording anything.
    const pick = await input({ type: 'pick', ...(await centre(form, '#save')) });
    expect(pick.body).toMatchObject({ steps: 4, element: { tag: 'button', selector: 'role=button[name="Save"]' } });
    expect(pick.body.recorded).toBeUndefined();

    expect(await input({ type: 'click' })).toMatchObject({ status: 400, body: { error: 'validation_error', details: [{ field: 'x' }, { field: 'y' }] } });
    expect(await input({ type: 'click', x: 5000, y: 1 })).toMatchObject({ status: 400, body: { details: [{ field: 'x' }] } });
    expect(await input({ type: 'key', key: 'F13x' })).toMatchObject({ status: 400, body: { details: [{ field: 'key' }] } });
    expect(await input({ type: 'teleport' })).toMatchObject({ status: 400 });
    // The egress guard: the metadata address is refused before the browser tries, and nothing is recorded.
    const metadata = await input({ type: 'navigate', url: 'http://169.254.169.254/latest/meta-data/' });
    expect(metadata).toMatchObject({ status: 400, body: { error: 'validation_error' } });
    expect(metadata.body.message).toContain('blocked by the egress policy');
    expect((await t.ex('GET', `/api/v1/recordings/${id}`)).body.steps).toHaveLength(4);

    const other = h.tenant();
    for (const [method, path, body] of [
      ['GET', `/api/v1/recordings/${id}`],
      ['GET', `/api/v1/recordings/${id}/stream`],
      ['POST', `/api/v1/recordings/${id}/input`, { type: 'reload' }],
      ['DELETE', `/api/v1/recordings/${id}`],
    ] as const) {
      expect(await other.ex(method, path, body)).toMatchObject({ status: 404, body: { error: 'not_found', message: 'Recording not found' } });
    }
    expect((await other.ex('GET', '/api/v1/recordings')).body).toEqual({ data: [] });
    expect((await other.ex('POST', '/api/v1/recordings', { project_id: projectId })).status).toBe(404);
    expect((await t.ex('GET', '/api/v1/recordings')).body.data.map((r: { id: string }) => r.id)).toEqual([id]);
    await t.ex('DELETE', `/api/v1/recordings/${id}`);
  });

  it('bounds recordings per organization and closes idle ones, ending their stream', async () => {
    const t = h.tenant();
    const projectId = await projectOn(t);
    const a = await t.ex('POST', '/api/v1/recordings', { project_id: projectId });
    const b = await t.ex('POST', '/api/v1/recordings', { project_id: projectId });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(await t.ex('POST', '/api/v1/recordings', { project_id: projectId })).toMatchObject({ status: 409, body: { error: 'conflict', message: 'This organization already has 2 open recordings (at most 2): stop one first' } });
    // Another organization has its own allowance.
    const other = h.tenant();
    const c = await other.ex('POST', '/api/v1/recordings', { project_id: await projectOn(other) });
    expect(c.status).toBe(201);
    await other.ex('DELETE', `/api/v1/recordings/${c.body.id}`);

    // Idle past RECORDER_IDLE_SECONDS: closed, the stream says why and ends.
    const streamed = t.ex('GET', `/api/v1/recordings/${a.body.id}/stream`);
    await new Promise((r) => setTimeout(r, 300));
    await t.ex('POST', `/api/v1/recordings/${b.body.id}/input`, { type: 'scroll', x: 10, y: 10, delta_y: 100 });
    // expires_at counts from the last input: b's moved on, a's did not.
    const bExpires = Date.parse((await t.ex('GET', `/api/v1/recordings/${b.body.id}`)).body.expires_at);
    expect(bExpires).toBeGreaterThan(Date.parse(a.body.expires_at));
    await h.recordings.sweep(Date.parse(a.body.expires_at));
    const events = parse((await streamed).body as string, () => false);
    expect(events.at(-1)).toEqual({ event: 'ended', data: { recording_id: a.body.id, reason: 'no input for 300 s' } });
    expect((await t.ex('GET', `/api/v1/recordings/${a.body.id}`)).status).toBe(404);
    // The other one had input since: still open, until its own idle time.
    expect((await t.ex('GET', `/api/v1/recordings/${b.body.id}`)).body.status).toBe('recording');
    await h.recordings.sweep(Date.now() + 1_801_000);
    expect((await t.ex('GET', `/api/v1/recordings/${b.body.id}`)).status).toBe(404);
    // Room again.
    expect((await t.ex('POST', '/api/v1/recordings', { project_id: projectId, start_path: '/nope-404' })).status).toBe(201);
    expect(await t.ex('POST', '/api/v1/recordings', { project_id: '00000000-0000-4000-8000-000000000000' })).toMatchObject({ status: 404, body: { message: 'Project not found' } });
  });
});

async function headersOf(t: Tenant): Promise<Record<string, string>> {
  return { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, t.principal) };
}
