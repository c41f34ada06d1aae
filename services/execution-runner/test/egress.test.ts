import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { DEFAULT_EGRESS } from '@assay/egress';
import { startRunnerHarness, type RunnerHarness } from './harness.js';
import { startConnectionTrap, type ConnectionTrap } from '@assay/testing';

jest.setTimeout(120_000);

// 127.0.0.2 stands in for a forbidden network (EGRESS_DENY_CIDRS): the real
// metadata and private addresses are exercised on a private network namespace's
// loopback in tests/netns. A trap there counts every TCP connection it gets.
let h: RunnerHarness;
let app: http.Server;
let appUrl: string;
let trap: ConnectionTrap;

beforeAll(async () => {
  trap = await startConnectionTrap();
  const bad = `http://127.0.0.2:${trap.port}`;
  app = http.createServer((req, res) => {
    if (req.url === '/redirect') return void res.writeHead(302, { location: `${bad}/latest/meta-data/` }).end();
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>App</title><h1 id="title">Dashboard</h1>
      <img src="${bad}/pixel.png"><iframe src="${bad}/frame"></iframe>
      <script>fetch('${bad}/api/secrets').catch(() => {});</script>`);
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  h = await startRunnerHarness({ stepTimeoutMs: 2000, egress: { ...DEFAULT_EGRESS, allowLoopback: true, denyCidrs: ['127.0.0.2/32'] } });
});
afterAll(async () => {
  await h.close();
  await new Promise((r) => app.close(r));
  await trap.close();
});

describe('the egress policy in test runs', () => {
  it('fails a navigation to a refused address with the reason, and one that a redirect takes there', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan(
      {
        direct: [
          { action: 'navigate', value: `http://127.0.0.2:${trap.port}/latest/meta-data/` },
          { action: 'assert_text', selector: 'body', value: 'ami-id' },
        ],
        redirected: [{ action: 'navigate', value: '/redirect' }],
      },
      { base_url: appUrl },
    );
    const r = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    expect(r.body).toMatchObject({ status: 'completed', passed_tests: 0, failed_tests: 2 });
    const [direct, redirected] = r.body.results.test_results;
    expect(direct.error).toBe(`Navigation to http://127.0.0.2:${trap.port}/latest/meta-data/ blocked by the egress policy (127.0.0.2 is in EGRESS_DENY_CIDRS)`);
    expect(direct.steps.map((s: { status: string }) => s.status)).toEqual(['failed', 'skipped']);
    expect(redirected.error).toBe(`Navigation to ${appUrl}/redirect blocked by the egress policy (127.0.0.2:${trap.port}: 127.0.0.2 is in EGRESS_DENY_CIDRS)`);
    const failed = await h.events('test.execution.failed');
    expect(failed.find((e) => e.data.execution.test_case_name === 'direct').data.execution.error).toMatchObject({ type: 'egress_blocked', step: 1 });
    expect(trap.hits).toBe(0);
  });

  it('passes a page whose subresources were refused and lists them in the result’s diagnostics', async () => {
    const t = h.tenant();
    const { projectId, planId, caseIds } = await t.plan(
      {
        dashboard: [
          { action: 'navigate', value: '/' },
          { action: 'assert_text', selector: '#title', value: 'Dashboard' },
        ],
      },
      { base_url: appUrl },
    );
    const r = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    expect(r.body).toMatchObject({ status: 'completed', passed_tests: 1, failed_tests: 0 });
    const results = await t.ex('GET', `/api/v1/executions/${r.body.id}/results`);
    const [result] = results.body.test_results;
    expect(result).toMatchObject({ test_id: caseIds[0], status: 'passed' });
    const blocked = result.diagnostics.blocked_requests as Array<{ url: string; reason: string; step_id: string; resource_type?: string }>;
    const paths = blocked.map((b) => (b.url.startsWith('http') ? new URL(b.url).pathname : b.url)).sort();
    expect(paths).toEqual(expect.arrayContaining(['/api/secrets', '/frame', '/pixel.png']));
    expect(blocked.filter((b) => b.reason !== '127.0.0.2 is in EGRESS_DENY_CIDRS')).toEqual([]);
    expect(new Set(blocked.map((b) => b.step_id)).size).toBeGreaterThanOrEqual(1);
    expect(result.steps.every((s: { status: string }) => s.status === 'passed')).toBe(true);
    expect(trap.hits).toBe(0);
  });
});
