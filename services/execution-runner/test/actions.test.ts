import { randomUUID } from 'node:crypto';
import { startRunnerHarness, type RunnerHarness, type Tenant } from './harness.js';

// The actions added to the spec's 13, run for real: a TodoMVC-like suite and
// its failing twins against the fixture shop, through the test-case service,
// the runner, Postgres and Chromium.
jest.setTimeout(180_000);

const MAX_BYTES = 64 * 1024;
const STEP_MS = 8000;
let h: RunnerHarness;
beforeAll(async () => {
  // A generous step timeout: the passing cases wait for conditions, and a busy machine must not fail them.
  h = await startRunnerHarness({ artifacts: { maxBytes: MAX_BYTES }, stepTimeoutMs: STEP_MS });
});
afterAll(() => h?.close());

const file = (content: string | Buffer, name: string, type: string, field = 'file') => {
  const form = new FormData();
  form.append(field, new Blob([content], { type }), name);
  return form;
};

describe('POST /api/v1/artifacts', () => {
  it('stores an uploaded file for the organization and serves it back only to it, as a download', async () => {
    const t = h.tenant();
    const up = await t.uploadForm(file('hello from assay\n', 'notes.txt', 'text/plain'));
    expect(up.status).toBe(201);
    expect(up.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      kind: 'upload',
      filename: 'notes.txt',
      content_type: 'text/plain',
      size: 17,
      created_at: expect.any(String),
      url: `http://assay.test/api/v1/artifacts/${up.body.id}`,
    });
    const row = await h.database.db.selectFrom('artifacts').selectAll().where('id', '=', up.body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ org_id: t.orgId, execution_id: null, kind: 'upload', filename: 'notes.txt', size: 17 });
    expect(row.data.toString()).toBe('hello from assay\n');

    const got = await t.ex('GET', `/api/v1/artifacts/${up.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toBe('hello from assay\n');
    expect(got.headers.get('content-disposition')).toBe('attachment; filename=notes.txt');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    const stranger = await h.tenant().ex('GET', `/api/v1/artifacts/${up.body.id}`);
    expect(stranger).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it('keeps only the base name of the file and the part’s content type', async () => {
    const t = h.tenant();
    // Written by hand, with a path in the file name as some clients send it.
    const body = Buffer.concat([
      Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="..\\\\uploads/../../etc/photo.png"\r\nContent-Type: image/png\r\n\r\n'),
      Buffer.from([0, 1, 2]),
      Buffer.from('\r\n--XyZ--\r\n'),
    ]);
    const up = await t.uploadForm(body, 'multipart/form-data; boundary=XyZ');
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ filename: 'photo.png', content_type: 'image/png', size: 3 });
  });

  it('refuses a file over ARTIFACT_MAX_BYTES with 413, other bodies with 400 or 415, and stores nothing', async () => {
    const t = h.tenant();
    const big = await t.uploadForm(file(Buffer.alloc(MAX_BYTES + 1, 7), 'big.bin', 'application/octet-stream'));
    expect(big).toMatchObject({ status: 413, body: { error: 'payload_too_large', message: `The file exceeds ${MAX_BYTES} bytes` } });
    const json = await t.ex('POST', '/api/v1/artifacts', { file: 'x' });
    expect(json).toMatchObject({ status: 415, body: { error: 'unsupported_media_type' } });
    const noFile = new FormData();
    noFile.append('name', 'x');
    expect(await t.uploadForm(noFile)).toMatchObject({ status: 400, body: { error: 'validation_error', details: [{ field: 'file' }] } });
    expect(await t.uploadForm(file('x', 'a.txt', 'text/plain', 'attachment'))).toMatchObject({ status: 400, body: { details: [{ field: 'attachment' }] } });
    const rows = await h.database.db.selectFrom('artifacts').select('id').where('org_id', '=', t.orgId).execute();
    expect(rows).toEqual([]);
  });
});

/** Steps that add the given todos on /todos. */
const withTodos = (...titles: string[]) => [
  { action: 'navigate', value: '/todos' },
  ...titles.flatMap((title) => [
    { action: 'fill', selector: '#new-todo', value: title },
    { action: 'press', selector: '#new-todo', value: 'Enter' },
  ]),
];
const item = (n: number) => `#todo-list li:nth-child(${n})`;

describe('the added actions against the fixture shop', () => {
  let t: Tenant;
  let results: Map<string, any>;
  let artifactId: string;
  const flakyKey = randomUUID();

  beforeAll(async () => {
    t = h.tenant();
    artifactId = (await t.uploadForm(file('hello from assay\n', 'notes.txt', 'text/plain'))).body.id;
    const foreignId = (await h.tenant().uploadForm(file('secret of another organization', 'secret.txt', 'text/plain'))).body.id;
    const cases: Record<string, unknown[]> = {
      // ---- passing: a TodoMVC suite
      'adds items with Enter and clears the input': [
        { action: 'navigate', value: '/todos' },
        { action: 'assert_value', selector: '#new-todo', value: '' },
        { action: 'assert_hidden', selector: '#todo-footer' },
        { action: 'assert_count', selector: '#todo-list li', value: '0' },
        { action: 'fill', selector: '#new-todo', value: 'buy some cheese' },
        { action: 'press', selector: '#new-todo', value: 'Enter' },
        { action: 'assert_value', selector: '#new-todo', value: '' },
        { action: 'fill', selector: '#new-todo', value: 'feed the cat' },
        { action: 'press', value: 'Enter' },
        { action: 'type', selector: '#new-todo', value: 'book a doctors appointment\n' },
        { action: 'assert_count', selector: '#todo-list li', value: '3' },
        { action: 'assert_text', selector: `${item(2)} label`, value: 'feed the cat' },
        { action: 'assert_text', selector: '#todo-count', value: '/^3 items left$/' },
      ],
      'edits an item with a double-click, saves with Enter, cancels with Escape and removes it when emptied': [
        ...withTodos('buy some cheese', 'feed the cat'),
        { action: 'dblclick', selector: `${item(2)} label` },
        { action: 'assert_attribute', selector: item(2), value: 'class~=editing' },
        { action: 'assert_hidden', selector: `${item(2)} label` },
        { action: 'fill', selector: `${item(2)} .edit`, value: 'buy some sausages' },
        { action: 'press', selector: `${item(2)} .edit`, value: 'Enter' },
        { action: 'assert_text', selector: `${item(2)} label`, value: '/^buy some sausages$/' },
        { action: 'dblclick', selector: `${item(2)} label` },
        { action: 'press', value: 'Control+A' },
        { action: 'press', value: 'Backspace' },
        { action: 'assert_value', selector: `${item(2)} .edit`, value: '' },
        { action: 'press', value: 'Escape' },
        { action: 'assert_text', selector: `${item(2)} label`, value: 'buy some sausages' },
        { action: 'dblclick', selector: `${item(1)} label` },
        { action: 'fill', selector: `${item(1)} .edit`, value: '' },
        { action: 'press', selector: `${item(1)} .edit`, value: 'Enter' },
        { action: 'assert_count', selector: '#todo-list li', value: '1' },
        { action: 'assert_text', selector: '#todo-count', value: '1 item left' },
      ],
      'shows clear completed only while something is completed': [
        ...withTodos('a', 'b', 'c'),
        { action: 'assert_hidden', selector: '#clear-completed' },
        { action: 'check', selector: `${item(2)} .toggle` },
        { action: 'assert_attribute', selector: item(2), value: 'class=completed' },
        { action: 'assert_attribute', selector: `${item(2)} .toggle`, value: 'type=/^check/' },
        { action: 'assert_visible', selector: '#clear-completed' },
        { action: 'click', selector: '#clear-completed' },
        { action: 'assert_count', selector: '#todo-list li', value: '2' },
        { action: 'assert_hidden', selector: '#clear-completed' },
      ],
      'highlights the current filter and respects the back and forward buttons': [
        ...withTodos('a', 'b', 'c'),
        { action: 'check', selector: `${item(2)} .toggle` },
        { action: 'assert_attribute', selector: '#filters a[href="#/"]', value: 'class~=selected' },
        { action: 'click', selector: '#filters a[href="#/active"]' },
        { action: 'assert_url', value: '#/active' },
        { action: 'assert_attribute', selector: '#filters a[href="#/active"]', value: 'class~=selected' },
        { action: 'assert_attribute', selector: '#filters a[href="#/"]', value: 'class=' },
        { action: 'assert_count', selector: '#todo-list li', value: '2' },
        { action: 'click', selector: '#filters a[href="#/completed"]' },
        { action: 'assert_url', value: '/\\/todos#\\/completed$/' },
        { action: 'assert_count', selector: '#todo-list li', value: '1' },
        { action: 'go_back' },
        { action: 'assert_url', value: '/#\\/active$/' },
        { action: 'assert_count', selector: '#todo-list li', value: '2' },
        { action: 'go_back' },
        { action: 'assert_url', value: '/\\/todos$/' },
        { action: 'assert_count', selector: '#todo-list li', value: '3' },
        { action: 'go_forward' },
        { action: 'assert_url', value: '#/active' },
      ],
      'keeps its items over a reload': [
        ...withTodos('a', 'b'),
        { action: 'check', selector: `${item(1)} .toggle` },
        { action: 'reload' },
        { action: 'assert_count', selector: '#todo-list li', value: '2' },
        { action: 'assert_attribute', selector: item(1), value: 'class~=completed' },
      ],
      'goes back and forward between pages': [
        { action: 'navigate', value: '/todos' },
        { action: 'navigate', value: '/about' },
        { action: 'go_back' },
        { action: 'assert_url', value: '/todos' },
        { action: 'assert_visible', selector: '#new-todo' },
        { action: 'go_forward' },
        { action: 'assert_text', selector: '#about-text', value: 'We sell things.' },
      ],
      'uploads a file the organization uploaded earlier': [
        { action: 'navigate', value: '/upload' },
        { action: 'assert_text', selector: '#file-name', value: '' },
        { action: 'upload', selector: '#file', value: artifactId },
        { action: 'assert_text', selector: '#file-name', value: 'notes.txt' },
        { action: 'assert_text', selector: '#file-type', value: 'text/plain' },
        { action: 'assert_text', selector: '#file-text', value: 'hello from assay' },
      ],
      'drags a card to another column': [
        { action: 'navigate', value: '/drag' },
        { action: 'drag', selector: '#card-1', value: '#done-column' },
        { action: 'assert_count', selector: '#done-column li', value: '1' },
        { action: 'assert_text', selector: '#drop-status', value: 'Moved Write tests to Done' },
      ],
      // ---- failing: each with the message a person reads
      'fail: count': [...withTodos('a', 'b'), { action: 'assert_count', selector: '#todo-list li', value: '3' }],
      'fail: hidden': [...withTodos('a'), { action: 'check', selector: `${item(1)} .toggle` }, { action: 'assert_hidden', selector: '#clear-completed' }],
      'fail: attribute': [...withTodos('a'), { action: 'assert_attribute', selector: '#filters a[href="#/active"]', value: 'class~=selected' }],
      'fail: attribute missing': [{ action: 'navigate', value: '/todos' }, { action: 'assert_attribute', selector: '#new-todo', value: 'disabled' }],
      'fail: url': [{ action: 'navigate', value: '/todos' }, { action: 'assert_url', value: '#/completed' }],
      'fail: url pattern': [{ action: 'navigate', value: '/todos' }, { action: 'assert_url', value: '/#\\/completed$/' }],
      'fail: text pattern': [...withTodos('a'), { action: 'assert_text', selector: '#todo-count', value: '/^\\d+ items left$/' }],
      'fail: empty text': [{ action: 'navigate', value: '/todos' }, { action: 'assert_text', selector: '#todos-title', value: '' }],
      'fail: empty value': [{ action: 'navigate', value: '/todos' }, { action: 'fill', selector: '#new-todo', value: 'x' }, { action: 'assert_value', selector: '#new-todo', value: '' }],
      'fail: back with no history': [{ action: 'go_back' }, { action: 'navigate', value: '/todos' }],
      'fail: forward with no history': [{ action: 'navigate', value: '/todos' }, { action: 'go_forward' }],
      'fail: reload answers 503': [{ action: 'navigate', value: `/flaky?key=${flakyKey}-r` }, { action: 'reload' }],
      'fail: back to a page answering 503': [{ action: 'navigate', value: `/flaky?key=${flakyKey}-b` }, { action: 'navigate', value: '/about' }, { action: 'go_back' }],
      'fail: upload of another organization’s file': [{ action: 'navigate', value: '/upload' }, { action: 'upload', selector: '#file', value: foreignId }],
      'fail: drag onto nothing': [{ action: 'navigate', value: '/drag' }, { action: 'drag', selector: '#card-1', value: '#nowhere' }],
      'fail: dblclick on nothing': [{ action: 'navigate', value: '/todos' }, { action: 'dblclick', selector: '#todo-list li label' }],
      'fail: press a key no keyboard has': [{ action: 'navigate', value: '/todos' }, { action: 'press', selector: '#new-todo', value: '{{key}}' }],
    };
    const { projectId, planId } = await t.plan(cases);
    const run = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId, variables: { key: 'Entr' } });
    expect(run.status).toBe(200);
    results = new Map(run.body.results.test_results.map((r: any) => [r.name, r]));
    expect(results.size).toBe(Object.keys(cases).length);
  });

  const passing = [
    'adds items with Enter and clears the input',
    'edits an item with a double-click, saves with Enter, cancels with Escape and removes it when emptied',
    'shows clear completed only while something is completed',
    'highlights the current filter and respects the back and forward buttons',
    'keeps its items over a reload',
    'goes back and forward between pages',
    'uploads a file the organization uploaded earlier',
    'drags a card to another column',
  ];
  it.each(passing)('passes: %s', (name) => {
    const r = results.get(name);
    expect([r.status, r.error]).toEqual(['passed', undefined]);
    expect(r.steps.every((s: any) => s.status === 'passed')).toBe(true);
  });

  it.each([
    ['fail: count', 'Expected 3 elements matching "#todo-list li", found 2', 6],
    ['fail: hidden', `Expected #clear-completed to be hidden, but it is visible (waited ${STEP_MS} ms)`, 5],
    ['fail: attribute', 'Expected attribute "class" of #filters a[href="#/active"] to contain "selected", but found ""', 4],
    ['fail: attribute missing', 'Expected attribute "disabled" of #new-todo to be present, but it has no such attribute', 2],
    ['fail: url', /^Expected the URL to contain "#\/completed" but it is "http:\/\/127\.0\.0\.1:\d+\/todos"$/, 2],
    ['fail: url pattern', /^Expected the URL to match \/#\\\/completed\$\/ but it is "http:\/\/127\.0\.0\.1:\d+\/todos"$/, 2],
    ['fail: text pattern', 'Expected text matching /^\\d+ items left$/ but found "1 item left"', 4],
    ['fail: empty text', 'Expected no text but found "todos"', 2],
    ['fail: empty value', 'Expected value "" but found "x"', 3],
    ['fail: back with no history', 'Cannot go back from about:blank: the tab has no earlier page', 1],
    ['fail: forward with no history', /^Cannot go forward from http:\/\/127\.0\.0\.1:\d+\/todos: the tab has no later page$/, 2],
    ['fail: reload answers 503', new RegExp(`^Reloading http://127\\.0\\.0\\.1:\\d+/flaky\\?key=${flakyKey}-r answered HTTP 503$`), 2],
    ['fail: back to a page answering 503', new RegExp(`^Going back to http://127\\.0\\.0\\.1:\\d+/flaky\\?key=${flakyKey}-b answered HTTP 503$`), 3],
    ['fail: upload of another organization’s file', /^Artifact [0-9a-f-]{36} not found: upload the file with POST \/api\/v1\/artifacts and use the id it answers$/, 2],
    ['fail: drag onto nothing', `Element not found: #nowhere (waited ${STEP_MS} ms)`, 2],
    ['fail: dblclick on nothing', `Element not found: #todo-list li label (waited ${STEP_MS} ms)`, 2],
    ['fail: press a key no keyboard has', /^The press value "Entr" is not a key: use a key name/, 2],
  ])('fails %s with a clear message at the right step', (name, message, step) => {
    const r = results.get(name as string);
    expect(r.status).toBe('failed');
    if (typeof message === 'string') expect(r.error).toBe(message);
    else expect(r.error).toMatch(message);
    const failedAt = r.steps.findIndex((s: any) => s.status === 'failed') + 1;
    expect([failedAt, r.steps[failedAt - 1].error]).toEqual([step, r.error]);
    expect(r.screenshot).toMatch(/^http:\/\/assay\.test\/api\/v1\/artifacts\//);
  });

  it('never hands another organization’s file to the page', async () => {
    const r = results.get('fail: upload of another organization’s file');
    expect(r.error).not.toContain('secret');
    const failed = (await h.events('test.execution.failed')).find((e) => e.data.execution.test_case_name === 'fail: upload of another organization’s file');
    expect(failed.data.execution.error).toMatchObject({ type: 'error', step: 2 });
    expect(JSON.stringify(failed.data)).not.toContain('secret of another organization');
  });

  it('reports the failure type of each new assertion and navigation for the analysis', async () => {
    const failed = await h.events('test.execution.failed');
    const typeOf = (name: string) => failed.find((e) => e.data.execution.test_case_name === name)?.data.execution.error.type;
    expect(['fail: count', 'fail: hidden', 'fail: attribute', 'fail: url', 'fail: empty value'].map(typeOf)).toEqual(Array(5).fill('assertion_failed'));
    expect(['fail: back with no history', 'fail: reload answers 503', 'fail: back to a page answering 503'].map(typeOf)).toEqual(Array(3).fill('navigation_failed'));
    expect(typeOf('fail: drag onto nothing')).toBe('element_not_found');
  });
});
