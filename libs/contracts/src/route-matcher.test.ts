import { ALIAS_PREFIX, API_KEY_SCOPES, ROUTES, routeMatcher, type RouteContract } from './index.js';

const router = routeMatcher();
const routed = ROUTES.filter((r) => !r.alias);
/** A concrete path of a template: each `{param}` becomes a sample id. */
const sample = (template: string) => template.replace(/\{([^}]+)\}/g, (_, name: string) => `${name}_1`);
/** Every form a routed entry is served under, with the path the service sees. */
const forms = (r: RouteContract) => [
  { path: sample(r.path), upstream: sample(r.path) },
  ...(r.aliases ?? []).map((a) => ({ path: sample(ALIAS_PREFIX[a] + r.path.slice('/api/v1/'.length)), upstream: sample(r.path) })),
];
/** The templates of every routed form, as regular expressions: an independent reading of the catalogue. */
const templates = routed.flatMap((r) =>
  [r.path, ...(r.aliases ?? []).map((a) => ALIAS_PREFIX[a] + r.path.slice('/api/v1/'.length))].map((t) => ({ route: r, re: new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}/?$`) })),
);

describe('the route catalogue as the gateway resolves it', () => {
  it.each(routed.flatMap((r) => forms(r).map((f) => [r.method, f.path, f.upstream, r] as const)))('resolves %s %s to its entry, forwarded as %s', (method, path, upstream, route) => {
    const match = router.match(method, path);
    expect(match?.route).toBe(route);
    expect(match?.upstreamPath).toBe(upstream);
    expect(router.match(method, `${path}/`)?.route).toBe(route);
    if (method === 'GET') expect(router.match('HEAD', path)?.route).toBe(route);
  });

  it('gives every credentialed route but the gateway’s own a scope a key can hold, or organization:write', () => {
    const unscoped = routed.filter((r) => r.auth !== false && r.service !== 'gateway' && !r.scope).map((r) => `${r.method} ${r.path}`);
    expect(unscoped).toEqual([]);
    for (const r of routed.filter((x) => x.scope && x.scope !== 'organization:write')) expect(API_KEY_SCOPES).toContain(r.scope);
    expect(routed.filter((r) => r.auth === false && r.scope)).toEqual([]);
  });

  it('routes each entry that documents an alias through the P1 entry it documents', () => {
    const documented = ROUTES.filter((r) => r.alias);
    expect(documented.map((r) => `${r.alias} ${r.method} ${r.path}`)).toEqual(['P0 GET /api/projects', 'P2 GET /v1/projects', 'P0 GET /api/executions/{execution_id}/failure-analysis']);
    for (const doc of documented) {
      const match = router.match(doc.method, sample(doc.path));
      expect(match?.route.aliases).toContain(doc.alias);
      expect(match?.route.service).toBe(doc.service);
      expect(match?.route.path).toBe('/api/v1/' + doc.path.slice(ALIAS_PREFIX[doc.alias!].length));
    }
  });

  it('resolves nothing the catalogue does not name: other methods, longer or shorter paths, other prefixes', () => {
    const probes = new Set<string>(['/', '/nope', '/api', '/api/v1', '/api/v2/test-cases', '/internal/authenticate', '/internal/plans/p_1/cases', '/API/V1/PROJECTS', '/api/v1/projectsx', '/api/v1/test-cases-archive', '/api/service-keysmith', '/api/v1/webhooksy', '/v1/test-cases', '/api/test-runs', '/api/recordings', '/api/v1/artifacts/a/b.png', '/api/v1/test-cases//restore']);
    for (const r of routed) {
      for (const { path } of forms(r)) {
        probes.add(path);
        probes.add(`${path}/more`);
        probes.add(path.split('/').slice(0, -1).join('/'));
      }
    }
    let resolved = 0;
    for (const path of probes) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const expected = templates.filter((t) => (t.route.method === method || t.route.service === 'gateway') && t.re.test(path));
        const match = router.match(method, path);
        if (expected.length === 0) expect([method, path, match]).toEqual([method, path, null]);
        else {
          expect(expected.map((t) => t.route)).toContain(match?.route);
          resolved++;
        }
      }
    }
    expect(resolved).toBeGreaterThan(routed.length);
  });

  it('refuses traversal and encoded slashes outright', () => {
    for (const path of ['/api/v1/test-cases/../../service-keys', '/api/v1/test-cases/%2e%2e/%2E%2E/service-keys', '/api/v1/test-cases/..%2fx', '/api/v1/test-cases/a%5cb', '/api/v1/test-cases/.']) {
      expect(router.match('GET', path)).toBeNull();
    }
  });

  it('prefers a literal segment to a parameter, whatever the order of the entries', () => {
    expect(router.match('GET', '/api/v1/reports/dashboard')?.route.path).toBe('/api/v1/reports/dashboard');
    const reversed = routeMatcher([...ROUTES].reverse());
    expect(reversed.match('GET', '/api/v1/reports/dashboard')?.route.path).toBe('/api/v1/reports/dashboard');
    expect(reversed.match('GET', '/api/v1/reports/r_1')?.route.path).toBe('/api/v1/reports/{report_id}');
  });

  it('answers 404 for an entry once it is removed from the catalogue, and for nothing else', () => {
    for (const removed of routed) {
      const without = routeMatcher(ROUTES.filter((r) => r !== removed));
      for (const { path } of forms(removed)) {
        const match = without.match(removed.method, path);
        // Only a parameter of another entry of the same method may still take the path (`/reports/dashboard` as a report id).
        if (match) expect(templates.some((t) => t.route === match.route && t.route !== removed && t.re.test(path))).toBe(true);
        expect(match?.route).not.toBe(removed);
      }
    }
    const withoutDashboard = routeMatcher(ROUTES.filter((r) => !(r.method === 'POST' && r.path === '/api/v1/test-cases/bulk-delete')));
    expect(withoutDashboard.match('POST', '/api/v1/test-cases/bulk-delete')).toBeNull();
    expect(withoutDashboard.match('POST', '/api/test-cases/bulk-delete')).toBeNull();
    expect(withoutDashboard.match('POST', '/api/v1/test-cases/import')?.route.path).toBe('/api/v1/test-cases/import');
  });

  it('refuses a catalogue that serves one method and path twice', () => {
    const twice = ROUTES.find((r) => r.path === '/api/v1/projects/{project_id}' && r.method === 'GET')!;
    expect(() => routeMatcher([...ROUTES, { ...twice, path: '/api/v1/projects/{id}', aliases: [] }])).toThrow(/serves GET \/api\/v1\/projects\/\{\} twice/);
    expect(() => routeMatcher([...ROUTES, { ...twice, path: '/api/auth/x', aliases: ['P0'] }])).toThrow(/only a P1 route has aliases/);
  });
});

describe('routing, scopes and quotas of the catalogue (as the hand-kept tables had them)', () => {
  it.each([
    ['GET', '/api/v1/executions/e1/failure-analysis', 'analysis', '/api/v1/executions/e1/failure-analysis', 'executions:read'],
    ['GET', '/api/executions/e1/failure-analysis', 'analysis', '/api/v1/executions/e1/failure-analysis', 'executions:read'],
    ['POST', '/api/v1/executions/e1/failure-analysis/t1/apply', 'analysis', '/api/v1/executions/e1/failure-analysis/t1/apply', 'executions:write'],
    ['POST', '/api/executions/e1/failure-analysis/t1/reject', 'analysis', '/api/v1/executions/e1/failure-analysis/t1/reject', 'executions:write'],
    ['GET', '/api/v1/issues', 'analysis', '/api/v1/issues', 'executions:read'],
    ['PATCH', '/api/v1/issues/i1', 'analysis', '/api/v1/issues/i1', 'executions:write'],
    ['GET', '/api/v1/test-cases/t1/flakiness', 'analysis', '/api/v1/test-cases/t1/flakiness', 'test_cases:read'],
    ['POST', '/api/v1/reports', 'analysis', '/api/v1/reports', 'executions:write'],
    ['GET', '/api/v1/reports/r1/snapshots/s1', 'analysis', '/api/v1/reports/r1/snapshots/s1', 'executions:read'],
    ['GET', '/api/v1/executions/e1/results', 'execution-runner', '/api/v1/executions/e1/results', 'executions:read'],
    ['POST', '/api/v1/test-runs/r1/save', 'execution-runner', '/api/v1/test-runs/r1/save', 'executions:write'],
    ['POST', '/api/v1/recordings', 'execution-runner', '/api/v1/recordings', 'executions:write'],
    ['GET', '/api/v1/artifacts/a1', 'execution-runner', '/api/v1/artifacts/a1', 'executions:read'],
    ['GET', '/api/executions', 'execution-runner', '/api/v1/executions', 'executions:read'],
    ['POST', '/api/executions/async', 'execution-runner', '/api/v1/executions/async', 'executions:write'],
    ['HEAD', '/api/v1/test-cases/tc_1', 'test-case', '/api/v1/test-cases/tc_1', 'test_cases:read'],
    ['POST', '/api/v1/test-cases', 'test-case', '/api/v1/test-cases', 'test_cases:write'],
    ['DELETE', '/api/test-cases/tc_1', 'test-case', '/api/v1/test-cases/tc_1', 'test_cases:write'],
    ['GET', '/api/v1/test-plans/tp_1', 'test-case', '/api/v1/test-plans/tp_1', 'test_cases:read'],
    ['POST', '/api/v1/test-plans/tp_1/test-cases', 'test-case', '/api/v1/test-plans/tp_1/test-cases', 'test_cases:write'],
    ['GET', '/api/v1/projects', 'test-case', '/api/v1/projects', 'projects:read'],
    ['POST', '/api/projects', 'test-case', '/api/v1/projects', 'projects:write'],
    ['GET', '/v1/projects', 'test-case', '/api/v1/projects', 'projects:read'],
    ['PUT', '/v1/projects/p_1', 'test-case', '/api/v1/projects/p_1', 'projects:write'],
    ['POST', '/api/v1/test-plans/tp_1/schedules', 'execution-runner', '/api/v1/test-plans/tp_1/schedules', 'executions:write'],
    ['GET', '/api/test-plans/tp_1/schedules/s_1', 'execution-runner', '/api/v1/test-plans/tp_1/schedules/s_1', 'executions:read'],
    ['GET', '/api/v1/discovery', 'discovery-crawler', '/api/v1/discovery', 'discovery:read'],
    ['POST', '/api/v1/discovery/start', 'discovery-crawler', '/api/v1/discovery/start', 'discovery:write'],
    ['GET', '/api/v1/webhooks', 'webhook-dispatcher', '/api/v1/webhooks', 'webhooks:manage'],
    ['POST', '/api/v1/webhooks/wh_1/test', 'webhook-dispatcher', '/api/v1/webhooks/wh_1/test', 'webhooks:manage'],
    ['GET', '/api/service-keys', 'auth', '/api/service-keys', 'keys:manage'],
    ['DELETE', '/api/service-keys/x', 'auth', '/api/service-keys/x', 'keys:manage'],
    ['POST', '/api/api-keys', 'auth', '/api/api-keys', 'keys:manage'],
    ['GET', '/api/organizations/current', 'auth', '/api/organizations/current', 'organization:read'],
    ['GET', '/api/auth/me', 'auth', '/api/auth/me', 'organization:read'],
    ['POST', '/api/organizations/current/transfer-ownership', 'auth', '/api/organizations/current/transfer-ownership', 'organization:write'],
    ['DELETE', '/api/organizations/current', 'auth', '/api/organizations/current', 'organization:write'],
    ['POST', '/api/auth/login', 'auth', '/api/auth/login', undefined],
    ['POST', '/api/billing/stripe/webhook', 'auth', '/api/billing/stripe/webhook', undefined],
    ['POST', '/mcp', 'gateway', '/mcp', undefined],
    ['GET', '/mcp', 'gateway', '/mcp', undefined],
  ])('%s %s goes to %s as %s and needs the scope %s', (method, path, service, upstream, scope) => {
    const match = router.match(method, path);
    expect([match?.route.service, match?.upstreamPath, match?.route.scope]).toEqual([service, upstream, scope]);
  });

  it('names the new work each quota refuses', () => {
    const quotas = routed.filter((r) => r.quota).map((r) => `${r.method} ${r.path} ${r.quota!.quotas.join('+')}`);
    expect(quotas).toEqual([
      'POST /api/v1/executions executions+browser_minutes',
      'POST /api/v1/executions/async executions+browser_minutes',
      'POST /api/v1/test-runs executions+browser_minutes',
      'POST /api/v1/recordings browser_minutes',
      'POST /api/v1/discovery/start discovery_pages',
    ]);
  });
});
