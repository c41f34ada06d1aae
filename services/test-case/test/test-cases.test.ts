import { startTestCaseService } from './harness.js';
import { useHarness } from '@assay/testing';

const svc = useHarness(() => startTestCaseService());

describe('test cases', () => {
  it('creates an active case with a step_id per step and emits test.case.created with its steps', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const r = await t.call('POST', '/api/v1/test-cases', {
      project_id: project.id,
      name: '  Checkout  ',
      description: 'Buys one item',
      tags: ['smoke'],
      steps: [
        { action: 'navigate', value: '/cart', description: 'open the cart' },
        { action: 'wait', selector: '#total', timeout: 5000 },
        { action: 'assert_text', selector: '#total', value: 'Total: $20' },
        { action: 'screenshot' },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ project_id: project.id, name: 'Checkout', description: 'Buys one item', status: 'active', priority: 'medium', tags: ['smoke'], deleted_at: null });
    expect(r.body.steps).toEqual([
      { step_id: expect.any(String), action: 'navigate', value: '/cart', description: 'open the cart' },
      { step_id: expect.any(String), action: 'wait', selector: '#total', timeout: 5000 },
      { step_id: expect.any(String), action: 'assert_text', selector: '#total', value: 'Total: $20' },
      { step_id: expect.any(String), action: 'screenshot' },
    ]);
    expect(new Set(r.body.steps.map((s: { step_id: string }) => s.step_id)).size).toBe(4);
    const [event] = await svc.events({ type: 'test.case.created', key: r.body.id });
    expect(event).toMatchObject({ organization_id: t.orgId, project_id: project.id, data: { source: 'api', test_case: { id: r.body.id, name: 'Checkout', steps: r.body.steps } } });
    expect((await t.call('GET', `/api/v1/test-cases/${r.body.id}`)).body).toEqual(r.body);
  });

  it('refuses a wrong step with a 400 naming the step index and field, and stores nothing', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const cases: Array<[unknown[], string, RegExp]> = [
      [[{ action: 'fill', selector: '#q' }], 'steps[0].value', /required for action "fill"/],
      [[{ action: 'navigate', value: '/' }, { action: 'click' }], 'steps[1].selector', /required/],
      [[{ action: 'wait', selector: '#x' }], 'steps[0].timeout', /milliseconds/],
      [[{ action: 'wait', selector: '#x', timeout: 2.5 }], 'steps[0].timeout', /integer/],
      [[{ action: 'teleport', selector: '#x' }], 'steps[0].action', /must be one of/],
      [[{ action: 'click', selector: '#a', timeout: 5 }], 'steps[0].timeout', /not used/],
      [[], 'steps', /at least 1/],
    ];
    for (const [steps, field, message] of cases) {
      const r = await t.call('POST', '/api/v1/test-cases', { project_id: project.id, name: 'x', steps });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('validation_error');
      expect(r.body.details).toEqual(expect.arrayContaining([{ field, message: expect.stringMatching(message) }]));
    }
    const missing = await t.call('POST', '/api/v1/test-cases', { project_id: project.id });
    expect(missing.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['name', 'steps']);
    expect((await t.call('GET', `/api/v1/test-cases?project_id=${project.id}&status=all`)).body.pagination.total).toBe(0);
  });

  it('stores the added actions with their parameters, empty expected values and {{placeholders}} in formatted values', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const steps = [
      { action: 'navigate', value: '/todos' },
      { action: 'assert_value', selector: '#new-todo', value: '' },
      { action: 'fill', selector: '#new-todo', value: '' },
      { action: 'assert_text', selector: '#todo-count', value: '/^\\d+ items? left$/' },
      { action: 'dblclick', selector: '#todo-list li label' },
      { action: 'press', selector: '#todo-list li .edit', value: 'Escape' },
      { action: 'press', value: 'Control+A' },
      { action: 'assert_hidden', selector: '#clear-completed' },
      { action: 'assert_count', selector: '#todo-list li', value: '{{expected_count}}' },
      { action: 'assert_attribute', selector: '#filters a[href="#/"]', value: 'class~=selected' },
      { action: 'assert_url', value: '#/active' },
      { action: 'go_back' },
      { action: 'go_forward' },
      { action: 'reload' },
      { action: 'upload', selector: '#file', value: '3f0c8a52-5d3e-4b8e-9a41-0d6f1c2b7e90' },
      { action: 'drag', selector: '#card-1', value: '#done' },
    ];
    const r = await t.call('POST', '/api/v1/test-cases', { project_id: project.id, name: 'Todo', steps });
    expect(r.status).toBe(201);
    expect(r.body.steps).toEqual(steps.map((s) => ({ step_id: expect.any(String), ...s })));
  });

  it('refuses the added actions’ bad parameters with a 400 naming the step and field, and stores nothing', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ action: 'dblclick' }, 'steps[0].selector', /is required for action "dblclick"/],
      [{ action: 'press', selector: '#x' }, 'steps[0].value', /is required for action "press"/],
      [{ action: 'press', value: 'Entr' }, 'steps[0].value', /^"Entr" is not a key/],
      [{ action: 'press', value: 'Enter+A' }, 'steps[0].value', /^"Enter" is not a modifier/],
      [{ action: 'assert_hidden', selector: '#x', value: 'y' }, 'steps[0].value', /is not used by action "assert_hidden"/],
      [{ action: 'assert_count', selector: 'li', value: '-1' }, 'steps[0].value', /whole number of elements/],
      [{ action: 'assert_count', selector: 'li', value: '' }, 'steps[0].value', /must not be empty/],
      [{ action: 'assert_attribute', selector: 'a', value: 'class ~= x y' }, 'steps[0].value', /name=expected/],
      [{ action: 'assert_url', value: '/(?<=a)b/' }, 'steps[0].value', /not a valid regular expression.*lookaround/],
      [{ action: 'assert_url', selector: '#x', value: 'a' }, 'steps[0].selector', /is not used by action "assert_url"/],
      [{ action: 'assert_text', selector: 'h1', value: '/[/' }, 'steps[0].value', /not a valid regular expression/],
      [{ action: 'go_back', value: '/' }, 'steps[0].value', /is not used by action "go_back"/],
      [{ action: 'reload', selector: 'body' }, 'steps[0].selector', /is not used by action "reload"/],
      [{ action: 'upload', selector: '#file', value: 'photo.png' }, 'steps[0].value', /id of an artifact uploaded with POST \/api\/v1\/artifacts/],
      [{ action: 'drag', selector: '#a', value: '  ' }, 'steps[0].value', /must not be empty for action "drag"/],
      [{ action: 'type', selector: '#a', value: '' }, 'steps[0].value', /must not be empty for action "type"/],
    ];
    for (const [step, field, message] of cases) {
      const r = await t.call('POST', '/api/v1/test-cases', { project_id: project.id, name: 'x', steps: [step] });
      expect([step, r.status, r.body.error]).toEqual([step, 400, 'validation_error']);
      expect(r.body.details).toEqual([{ field, message: expect.stringMatching(message) }]);
    }
    expect((await t.call('GET', `/api/v1/test-cases?project_id=${project.id}&status=all`)).body.pagination.total).toBe(0);
  });

  it('lists with pagination, search, status and plan filters in a stable order', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const names = ['Login OK', 'login fails', 'Search works', 'Checkout', '50% off banner'];
    const ids: string[] = [];
    for (const name of names) ids.push((await t.testCase(project.id, { name })).id);
    const list = (q: string) => t.call('GET', `/api/v1/test-cases?project_id=${project.id}${q}`);

    const all = await list('');
    expect(all.body.data.map((c: { name: string }) => c.name)).toEqual(names);
    expect(all.body.pagination).toEqual({ limit: 50, offset: 0, total: 5 });
    const page = await list('&limit=2&offset=2');
    expect(page.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(2, 4));
    expect(page.body.pagination).toEqual({ limit: 2, offset: 2, total: 5 });
    expect((await list('&search=LOGIN')).body.data.map((c: { name: string }) => c.name)).toEqual(['Login OK', 'login fails']);
    expect((await list('&search=50%25')).body.data.map((c: { name: string }) => c.name)).toEqual(['50% off banner']);
    expect((await list('&search=_')).body.data).toEqual([]);

    await t.call('DELETE', `/api/v1/test-cases/${ids[1]}`);
    expect((await list('')).body.pagination.total).toBe(4);
    expect((await list('&status=archived')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
    expect((await list('&status=all')).body.pagination.total).toBe(5);

    const plan = await t.call('POST', '/api/v1/test-plans', { project_id: project.id, name: 'p', test_case_ids: [ids[3], ids[0]] });
    expect((await list(`&test_plan_id=${plan.body.id}`)).body.data.map((c: { id: string }) => c.id)).toEqual([ids[3], ids[0]]);
  });

  it('refuses bad list parameters with 400 naming them', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const cases: Array<[string, string]> = [
      ['', 'project_id'],
      [`project_id=${project.id}&limit=0`, 'limit'],
      [`project_id=${project.id}&limit=501`, 'limit'],
      [`project_id=${project.id}&offset=-1`, 'offset'],
      [`project_id=${project.id}&limit=ten`, 'limit'],
      [`project_id=${project.id}&status=deleted`, 'status'],
      [`project_id=${project.id}&project_id=${project.id}`, 'project_id'],
    ];
    for (const [query, field] of cases) {
      const r = await t.call('GET', `/api/v1/test-cases?${query}`);
      expect(r.status).toBe(400);
      expect(r.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await t.call('GET', `/api/v1/test-cases?project_id=${project.id}&limit=500`)).status).toBe(200);
  });

  it('updates any subset, replaces steps keeping known step ids, moves updated_at and emits the changes', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const created = await t.testCase(project.id);
    await new Promise((r) => setTimeout(r, 10));
    const keep = created.steps[0];
    const r = await t.call('PUT', `/api/v1/test-cases/${created.id}`, {
      name: 'Login still works',
      steps: [keep, { action: 'assert_visible', selector: '#welcome', step_id: 'invented' }],
    });
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('Login still works');
    expect(r.body.description).toBeNull();
    expect(r.body.steps[0]).toEqual(keep);
    expect(r.body.steps[1]).toMatchObject({ action: 'assert_visible', selector: '#welcome' });
    expect(r.body.steps[1].step_id).not.toBe('invented');
    expect(Date.parse(r.body.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));

    const [event] = await svc.events({ type: 'test.case.updated', key: created.id });
    expect(event!.data.test_case_id).toBe(created.id);
    // The priority rides along so webhook priority filters apply to updates too.
    expect(event!.data.priority).toBe('medium');
    expect(event!.data.changes.name).toEqual({ before: 'Login works', after: 'Login still works' });
    expect(event!.data.changes.steps.before).toEqual(created.steps);
    expect(event!.data.changes.steps.after).toEqual(r.body.steps);

    // Sending the whole object back (GET, edit, PUT) works; read-only fields are ignored when unchanged.
    const roundTrip = await t.call('PUT', `/api/v1/test-cases/${created.id}`, { ...r.body, priority: 'high' });
    expect(roundTrip.status).toBe(200);
    expect(roundTrip.body.priority).toBe('high');
    const move = await t.call('PUT', `/api/v1/test-cases/${created.id}`, { project_id: (await t.project()).id });
    expect(move.status).toBe(400);
    expect((await t.call('PUT', `/api/v1/test-cases/${created.id}`, {})).status).toBe(400);
  });

  it('archives on a plain DELETE, restores, and removes permanently with force_delete', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const c = await t.testCase(project.id);
    const archived = await t.call('DELETE', `/api/v1/test-cases/${c.id}`);
    expect(archived.body).toEqual({ id: c.id, status: 'archived', deleted_at: expect.any(String) });
    expect((await t.call('GET', `/api/v1/test-cases/${c.id}`)).body).toMatchObject({ status: 'archived', deleted_at: archived.body.deleted_at });
    expect((await t.call('DELETE', `/api/v1/test-cases/${c.id}`)).body).toEqual(archived.body);

    const restored = await t.call('POST', `/api/v1/test-cases/${c.id}/restore`);
    expect(restored.body).toMatchObject({ id: c.id, status: 'active', deleted_at: null });
    expect((await t.call('POST', `/api/v1/test-cases/${c.id}/restore`)).status).toBe(409);

    const plan = await t.call('POST', '/api/v1/test-plans', { project_id: project.id, name: 'p', test_case_ids: [c.id] });
    const removed = await t.call('DELETE', `/api/v1/test-cases/${c.id}?force_delete=true`);
    expect(removed.body).toEqual({ id: c.id, name: c.name, status: 'deleted', deleted_at: expect.any(String), removed_from_test_plans: 1 });
    expect((await t.call('GET', `/api/v1/test-cases/${c.id}`)).status).toBe(404);
    expect((await t.call('GET', `/api/v1/test-plans/${plan.body.id}`)).body.test_case_ids).toEqual([]);

    const deletions = await svc.events({ type: 'test.case.deleted', key: c.id });
    expect(deletions.map((e) => e.data)).toEqual([
      { test_case_id: c.id, name: c.name, project_id: project.id, priority: 'medium', permanent: false },
      { test_case_id: c.id, name: c.name, project_id: project.id, priority: 'medium', permanent: true },
    ]);
    expect((await t.call('DELETE', `/api/v1/test-cases/${c.id}?force_delete=maybe`)).status).toBe(400);
  });

  it('bulk-deletes mixed ids with a status for every id, treating other organizations’ ids as not found', async () => {
    const t = svc.tenant();
    const other = svc.tenant();
    const project = await t.project();
    const mine = [await t.testCase(project.id), await t.testCase(project.id)];
    const theirs = await other.testCase((await other.project()).id);
    const ids = [mine[0].id, theirs.id, 'not-an-id', '00000000-0000-4000-8000-000000000000', mine[1].id];
    const r = await t.call('POST', '/api/v1/test-cases/bulk-delete', { test_case_ids: ids, soft_delete: true });
    expect(r.body).toEqual({
      deleted: 2,
      failed: 3,
      results: [
        { id: ids[0], status: 'archived' },
        { id: ids[1], status: 'not_found' },
        { id: ids[2], status: 'not_found' },
        { id: ids[3], status: 'not_found' },
        { id: ids[4], status: 'archived' },
      ],
    });
    expect((await other.call('GET', `/api/v1/test-cases/${theirs.id}`)).body.status).toBe('active');

    const hard = await t.call('POST', '/api/v1/test-cases/bulk-delete', { test_case_ids: [mine[0].id], soft_delete: false });
    expect(hard.body.results).toEqual([{ id: mine[0].id, status: 'deleted' }]);
    expect((await t.call('GET', `/api/v1/test-cases/${mine[0].id}`)).status).toBe(404);

    const tooMany = await t.call('POST', '/api/v1/test-cases/bulk-delete', { test_case_ids: Array.from({ length: 1001 }, (_, i) => `id-${i}`) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details[0].field).toBe('test_case_ids');
  });

  it('answers 404 for another organization’s test cases, projects and plans, and changes nothing', async () => {
    const a = svc.tenant();
    const b = svc.tenant();
    const project = await a.project();
    const c = await a.testCase(project.id);
    const plan = await a.call('POST', '/api/v1/test-plans', { project_id: project.id, name: 'p', test_case_ids: [c.id] });
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/api/v1/test-cases/${c.id}`],
      ['PUT', `/api/v1/test-cases/${c.id}`, { name: 'pwned' }],
      ['DELETE', `/api/v1/test-cases/${c.id}?force_delete=true`],
      ['POST', `/api/v1/test-cases/${c.id}/restore`],
      ['GET', `/api/v1/test-cases?project_id=${project.id}`],
      ['POST', '/api/v1/test-cases', { project_id: project.id, name: 'x', steps: [{ action: 'navigate', value: '/' }] }],
      ['GET', `/api/v1/projects/${project.id}`],
      ['PUT', `/api/v1/projects/${project.id}`, { name: 'pwned' }],
      ['DELETE', `/api/v1/projects/${project.id}?force=true`],
      ['GET', `/api/v1/test-plans/${plan.body.id}`],
      ['PUT', `/api/v1/test-plans/${plan.body.id}`, { name: 'pwned' }],
      ['POST', `/api/v1/test-plans/${plan.body.id}/test-cases`, { test_case_id: c.id }],
      ['DELETE', `/api/v1/test-plans/${plan.body.id}/test-cases/${c.id}`],
      ['DELETE', `/api/v1/test-plans/${plan.body.id}`],
    ];
    for (const [method, path, body] of attempts) {
      const r = await b.call(method, path, body);
      expect({ method, path, status: r.status, error: r.body?.error }).toEqual({ method, path, status: 404, error: 'not_found' });
    }
    expect((await a.call('GET', `/api/v1/test-cases/${c.id}`)).body).toEqual(c);
    expect((await a.call('GET', `/api/v1/test-plans/${plan.body.id}`)).body.test_case_ids).toEqual([c.id]);
    expect((await b.call('GET', '/api/v1/projects')).body.data).toEqual([]);
  });

  it('answers malformed JSON and unknown ids without a 500', async () => {
    const t = svc.tenant();
    expect((await t.call('POST', '/api/v1/test-cases', '{"name":')).status).toBe(400);
    expect((await t.call('POST', '/api/v1/test-cases', '[]')).status).toBe(400);
    // A NUL in the path is refused at the door (@assay/http) before any route reads it.
    const nul = await t.call('GET', '/api/v1/test-cases/%00');
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({ error: 'validation_error', details: [{ field: 'path' }] });
    expect((await t.call('GET', '/api/v1/test-cases/nope')).status).toBe(404);
    expect((await t.call('PUT', '/api/v1/test-cases/nope', { name: 'x' })).status).toBe(404);
  });

  it('refuses strings Postgres cannot store and inherited names posing as actions, with a 400 and no row', async () => {
    const t = svc.tenant();
    const project = await t.project();
    // JSON text with the escapes \u0000 and a lone \ud800, as a client would send them.
    const bodies = [
      `{"project_id":"${project.id}","name":"nul\\u0000name","steps":[{"action":"navigate","value":"/"}]}`,
      `{"project_id":"${project.id}","name":"x","steps":[{"action":"navigate","value":"lone \\ud800 surrogate"}]}`,
      JSON.stringify({ project_id: project.id, name: 'x', steps: [{ action: 'constructor' }] }),
      JSON.stringify({ project_id: project.id, name: 'x', steps: [{ action: 'toString', selector: '#a' }] }),
    ];
    for (const body of bodies) {
      const r = await t.call('POST', '/api/v1/test-cases', body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status: 400, error: 'validation_error' });
    }
    expect((await t.call('GET', `/api/v1/test-cases?project_id=${project.id}&search=%00`)).status).toBe(400);
    expect((await t.call('GET', `/api/v1/test-cases?project_id=${project.id}&status=all`)).body.pagination.total).toBe(0);
  });
});
