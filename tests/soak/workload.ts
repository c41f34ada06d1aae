import { FAILING_CASE, PASSING_CASES } from '../e2e/support/clients.js';
import { ApiLog, uuidsIn, type Reply } from './api.js';
import type { Receiver } from './receiver.js';
import type { Stack } from './stack.js';

/**
 * The mixed workload of `make soak`, on two organizations (Pro plan): plan
 * executions sync and async, exploratory test runs, discovery sessions, bulk
 * imports, webhook subscriptions to the local receiver, and steady API reads
 * from several keys of each organization, each read checked for the other
 * organization's ids.
 */

export interface Org {
  name: string;
  orgId: string;
  /** The key that writes; readers read. */
  writer: string;
  readers: string[];
  projectId: string;
  planIds: string[];
  webhookIds: string[];
  /** Every id this organization created (or was answered with), for the cross-organization check. */
  ids: Set<string>;
}

export interface WorkloadCounts {
  executionsStarted: number;
  syncExecutions: number;
  testRuns: number;
  discoveries: number;
  imports: number;
  importedCases: number;
  reads: number;
  keyRotations: number;
  /** Revoked keys still accepted 4.5 s after their revocation (the gateway caches at most 2 s). */
  revokedKeyAccepted: number;
  cancellations: number;
  crossOrgLeaks: Array<{ reader: string; route: string; foreignId: string }>;
}

/** Events the soak's webhooks subscribe to, by receiver route. */
export const SUBSCRIPTIONS: Record<string, string[]> = {
  '/fast': [
    'test.execution.started', 'test.execution.passed', 'test.execution.failed', 'test.execution.completed',
    'test.plan.started', 'test.plan.completed', 'test.completed', 'discovery.session.started', 'discovery.session.completed',
  ],
  '/slow': ['test.plan.started', 'test.plan.completed', 'test.completed', 'discovery.session.completed', 'test.case.created'],
  '/flaky': ['test.execution.completed', 'test.completed', 'test.case.created'],
};

async function must(reply: Promise<Reply>, what: string, status = [200, 201]): Promise<any> {
  // Setup runs before any fault; a 503 here means a service is still warming up: try again.
  for (let attempt = 0; ; attempt++) {
    const r = await reply;
    if (status.includes(r.status)) return r.body;
    if (attempt >= 10 || (r.status !== 0 && r.status < 500)) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 1000));
  }
}

export async function setupOrg(stack: Stack, api: ApiLog, name: string, shopUrl: string, receiver: Receiver, routes: string[], failing: boolean): Promise<Org> {
  const provisioned = await stack.provisionOrganization(name, 'pro');
  const login = await must(api.call(name, '', 'POST', '/api/auth/login', { body: { email: provisioned.email, password: provisioned.password } }), 'login');
  const session = login.token as string;
  const keys: string[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await must(api.call(name, session, 'POST', '/api/service-keys', { body: { name: `soak ${i}`, environment: 'prod' } }), 'service key');
    keys.push(created.key);
  }
  const ids = new Set<string>([provisioned.orgId]);
  const writer = keys[0]!;
  const project = await must(api.call(name, writer, 'POST', '/api/v1/projects', { body: { name: `${name} shop`, base_url: shopUrl } }), 'project');
  ids.add(project.id);
  const caseIds: string[] = [];
  // Three cases; the second organization's third one fails, so failure analysis has work too.
  const cases = [...Object.entries(PASSING_CASES).slice(0, failing ? 2 : 3), ...(failing ? Object.entries(FAILING_CASE) : [])];
  for (const [caseName, steps] of cases) {
    const created = await must(api.call(name, writer, 'POST', '/api/v1/test-cases', { body: { project_id: project.id, name: caseName, steps } }), 'test case');
    caseIds.push(created.id);
    ids.add(created.id);
  }
  const planIds: string[] = [];
  for (const [i, members] of [caseIds, caseIds.slice(0, 2)].entries()) {
    const plan = await must(api.call(name, writer, 'POST', '/api/v1/test-plans', { body: { project_id: project.id, name: `${name} plan ${i}`, test_case_ids: members } }), 'plan');
    planIds.push(plan.id);
    ids.add(plan.id);
  }
  const webhookIds: string[] = [];
  for (const route of routes) {
    const hook = await must(
      api.call(name, writer, 'POST', '/api/v1/webhooks', { body: { name: `${name} ${route}`, url: `${receiver.url}${route}`, events: SUBSCRIPTIONS[route] } }),
      'webhook',
    );
    webhookIds.push(hook.id);
    ids.add(hook.id);
  }
  return { name, orgId: provisioned.orgId, writer, readers: keys.slice(1), projectId: project.id, planIds, webhookIds, ids };
}

/** Runs `fn` every `everyMs` (± 30 %, from the seeded generator) until `until` or the request budget is spent; one call at a time. */
async function every(random: () => number, everyMs: number, until: number, fn: () => Promise<void>, spent: () => boolean = () => false): Promise<void> {
  // Actors start spread out, not all at once.
  const pause = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, Math.min(ms, until - Date.now()))));
  await pause(random() * everyMs);
  while (Date.now() < until && !spent()) {
    await fn().catch((err) => process.stdout.write(`[soak] workload error: ${String(err)}\n`));
    await pause(everyMs * (0.7 + 0.6 * random()));
  }
}

function importFile(batch: number, count: number): Blob {
  const cases = Array.from({ length: count }, (_, i) => ({
    name: `Imported ${batch}.${i}`,
    description: 'bulk import of the soak',
    steps: [
      { action: 'navigate', value: '/products' },
      { action: 'assert_visible', selector: '#product-list' },
    ],
  }));
  return new Blob([JSON.stringify(cases)], { type: 'application/json' });
}

export async function runWorkload(api: ApiLog, orgs: Org[], shopUrl: string, random: () => number, until: number, scale = 1, maxRequests = Infinity): Promise<WorkloadCounts> {
  const budgetStart = api.calls.length;
  const spent = () => api.calls.length - budgetStart >= maxRequests;
  const counts: WorkloadCounts = { executionsStarted: 0, syncExecutions: 0, testRuns: 0, discoveries: 0, imports: 0, importedCases: 0, reads: 0, keyRotations: 0, revokedKeyAccepted: 0, cancellations: 0, crossOrgLeaks: [] };
  const remember = (org: Org, body: unknown) => {
    for (const id of uuidsIn(body)) org.ids.add(id);
  };
  const actors: Array<Promise<void>> = [];
  let batch = 0;
  for (const org of orgs) {
    const other = orgs.filter((o) => o !== org);
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
    // Async plan executions.
    actors.push(
      every(random, 14_000 / scale, until, async () => {
        const r = await api.call(org.name, org.writer, 'POST', '/api/v1/executions/async', { body: { test_plan_id: pick(org.planIds), project_id: org.projectId } });
        if (r.status === 202 || r.status === 201) counts.executionsStarted++;
        remember(org, r.body);
      }, spent),
    );
    // Synchronous plan executions: the request waits for the run.
    actors.push(
      every(random, 40_000 / scale, until, async () => {
        const r = await api.call(org.name, org.writer, 'POST', '/api/v1/executions', {
          body: { test_plan_id: org.planIds[1], project_id: org.projectId, wait_for_completion: true, timeout_seconds: 120 },
          timeoutMs: 150_000,
        });
        if (r.status === 200 || r.status === 201) counts.syncExecutions++;
        remember(org, r.body);
      }, spent),
    );
    // Exploratory runs of steps.
    actors.push(
      every(random, 45_000 / scale, until, async () => {
        const r = await api.call(org.name, org.writer, 'POST', '/api/v1/test-runs', {
          body: { project_id: org.projectId, name: 'soak run', steps: PASSING_CASES['Menu opens on hover'], wait_for_completion: false },
        });
        if (r.status < 300 && r.status > 0) counts.testRuns++;
        remember(org, r.body);
      }, spent),
    );
    // Discovery sessions of the fixture shop.
    actors.push(
      every(random, 70_000 / scale, until, async () => {
        const r = await api.call(org.name, org.writer, 'POST', '/api/v1/discovery/start', {
          body: { project_id: org.projectId, target_url: shopUrl, max_pages: 6, max_depth: 2 },
        });
        if (r.status === 201) counts.discoveries++;
        remember(org, r.body);
      }, spent),
    );
    // Bulk imports.
    actors.push(
      every(random, 50_000 / scale, until, async () => {
        const form = new FormData();
        form.set('project_id', org.projectId);
        form.set('file', importFile(++batch, 8), 'cases.json');
        const r = await api.call(org.name, org.writer, 'POST', '/api/v1/test-cases/import', { form });
        if (r.status < 300 && r.status > 0) {
          counts.imports++;
          counts.importedCases += Number(r.body?.imported ?? 0);
        }
        remember(org, r.body);
      }, spent),
    );
    // Key rotation: a new key, used once, then revoked (auth's revocation event evicts it from every gateway's cache).
    actors.push(
      every(random, 30_000 / scale, until, async () => {
        const created = await api.call(org.name, org.writer, 'POST', '/api/service-keys', { body: { name: 'soak rotation', environment: 'prod' } });
        if (created.status !== 201) return;
        counts.keyRotations++;
        await api.call(org.name, created.body.key, 'GET', '/api/v1/projects');
        await api.call(org.name, org.writer, 'DELETE', `/api/service-keys/${created.body.id}`);
        // A revoked key must stop working (after the gateway's cache of at most AUTH_CACHE_TTL_MS).
        await new Promise((r) => setTimeout(r, 4500));
        const after = await api.call(org.name, created.body.key, 'GET', '/api/v1/projects');
        if (after.status === 200) counts.revokedKeyAccepted++;
      }, spent),
    );
    // Cancellations: an async execution cancelled at once (it may also have finished already: 409).
    actors.push(
      every(random, 35_000 / scale, until, async () => {
        const r = await api.call(org.name, org.writer, 'POST', '/api/v1/executions/async', { body: { test_plan_id: org.planIds[0], project_id: org.projectId } });
        if (r.status !== 202 && r.status !== 201) return;
        counts.executionsStarted++;
        remember(org, r.body);
        const cancelled = await api.call(org.name, org.writer, 'DELETE', `/api/v1/executions/${r.body.id}`);
        if (cancelled.status === 200) counts.cancellations++;
      }, spent),
    );
    // Steady reads from every reader key, checked for the other organization's ids.
    const reads = [
      () => '/api/v1/projects',
      () => `/api/v1/test-cases?project_id=${org.projectId}&limit=50`,
      () => `/api/v1/executions?project_id=${org.projectId}&limit=20`,
      () => '/api/v1/webhooks',
      () => `/api/v1/webhooks/${pick(org.webhookIds)}/deliveries?limit=20`,
      () => `/api/v1/discovery?project_id=${org.projectId}`,
      () => `/api/v1/issues?project_id=${org.projectId}`,
      () => `/api/v1/test-runs?project_id=${org.projectId}`,
      () => '/api/service-keys',
    ];
    for (const key of org.readers) {
      actors.push(
        every(random, 1500 / scale, until, async () => {
          const path = pick(reads)();
          const r = await api.call(org.name, key, 'GET', path);
          counts.reads++;
          if (r.status !== 200) return;
          const found = new Set(uuidsIn(r.body));
          for (const o of other) {
            for (const id of found) if (o.ids.has(id)) counts.crossOrgLeaks.push({ reader: org.name, route: path, foreignId: id });
          }
        }, spent),
      );
    }
  }
  await Promise.all(actors);
  return counts;
}
