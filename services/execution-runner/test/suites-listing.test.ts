import { eventually, useHarness } from '@assay/testing';
import { packSuite, startSuitesHarness } from './suites-harness.js';

// Uploads under the chart: the runner that receives them cannot make the box
// (listOnUpload false, as a runner pod without capabilities), so it stores the
// version as `listing` with a `suite.list.requested`; a shard runner (a
// suite-shard replica that can make boxes) lists it in a box. On real parts:
// Postgres, the pg bus and outbox relay, boxes, the fixture shop.
jest.setTimeout(120_000);

describe('a suite uploaded to a runner that cannot make the box', () => {
  const h = useHarness(() => startSuitesHarness({ shardRunners: 0, listOnUpload: false }));

  it('answers 202 listing, refuses runs with 409 until a suite-shard runner has listed it, then runs it', async () => {
    // The suite-shard group has subscribed once (as the chart's pods did when they started), and none runs now:
    // the command waits for one on the bus.
    await (await h.startShardRunner()).stop();
    const t = h.tenant();
    const projectId = await t.project();
    const up = await t.upload({ project_id: projectId, name: 'shop e2e' }, packSuite('shop'));
    expect(up.status).toBe(202);
    expect(up.headers.get('location')).toBe(`/api/v1/suites/${up.body.id}/versions/1`);
    expect(up.body).toMatchObject({ name: 'shop e2e', latest_version: 1, version: { version: 1, status: 'listing', error: null, config_file: 'playwright.config.ts', total_tests: 0, tests: [] } });
    // Nothing lists it yet: its runs are refused, saying why.
    const early = await t.ex('POST', '/api/v1/executions/async', { project_id: projectId, suite_id: up.body.id });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: 'conflict', message: expect.stringMatching(/still being listed/) });
    expect((await t.ex('GET', `/api/v1/suites/${up.body.id}/versions/1`)).body.status).toBe('listing');
    expect(await h.events('suite.list.requested')).toEqual([expect.objectContaining({ organization_id: t.orgId, project_id: projectId, data: { suite_version_id: up.body.version.id, attempt: 1 } })]);

    await h.startShardRunner();
    const listed = await eventually(async () => {
      const v = (await t.ex('GET', `/api/v1/suites/${up.body.id}/versions/1`)).body;
      return v.status === 'listing' ? undefined : v;
    }, 60_000, 200);
    expect(listed).toMatchObject({ status: 'ready', error: null, fully_parallel: true, total_tests: 6 });
    expect(listed.listed_at).toEqual(expect.any(String));
    expect(listed.tests.map((x: any) => x.title)).toEqual(['shows its title on the home page', 'signs a user in', 'lists products', 'finds a heading that is not there', 'passes on its second attempt', 'is skipped']);
    expect(listed.tests[1]).toMatchObject({ project: 'chromium', file: 'shop.spec.ts', line: 12, title_path: ['the shop', 'signs a user in'] });

    const run = await t.ex('POST', '/api/v1/executions/async', { project_id: projectId, suite_id: up.body.id, grep: 'shows its title|signs a user in' });
    expect(run.status).toBe(202);
    const done = await eventually(async () => {
      const r = await t.ex('GET', `/api/v1/executions/${run.body.id}`);
      return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : undefined;
    }, 90_000, 300);
    expect(done).toMatchObject({ kind: 'suite', status: 'completed', total_tests: 2, passed_tests: 2, failed_tests: 0 });
  });

  it('marks a version Playwright cannot list invalid with its message, and its runs answer 409 with it', async () => {
    const t = h.tenant();
    const projectId = await t.project();
    const up = await t.upload({ project_id: projectId, name: 'broken' }, packSuite('broken'));
    expect(up.status).toBe(202);
    const v = await eventually(async () => {
      const r = (await t.ex('GET', `/api/v1/suites/${up.body.id}/versions/1`)).body;
      return r.status === 'listing' ? undefined : r;
    }, 60_000, 200);
    expect(v).toMatchObject({ status: 'invalid', total_tests: 0, error: expect.stringMatching(/Playwright Test could not list its tests[\s\S]*broken\.spec\.ts/) });
    const run = await t.ex('POST', '/api/v1/executions', { project_id: projectId, suite_id: up.body.id });
    expect(run.status).toBe(409);
    expect(run.body.message).toMatch(/could not be listed, so it cannot run: .*Playwright Test could not list its tests/);
    // What the receiving runner can check without a box is still refused at once.
    const deps = await t.upload({ project_id: projectId, name: 'deps' }, packSuite('needs-deps'));
    expect(deps.status).toBe(400);
    expect(deps.body.message).toMatch(/depends on left-pad/);
  });
});
