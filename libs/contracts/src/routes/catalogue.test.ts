import { catalogueMismatches, ROUTES, type ServiceName, type ServiceRoutePath } from '../index.js';

// Type-level: a service's router takes its own catalogue paths (parameters under any name) and nothing else.
const projectPath: ServiceRoutePath<'test-case', 'GET'> = '/api/v1/projects/:id';
const snapshotPath: ServiceRoutePath<'test-case', 'GET'> = '/internal/test-plans/:test_plan_id/snapshot';
// @ts-expect-error -- an execution route is the runner's, not test-case's
const foreignPath: ServiceRoutePath<'test-case', 'GET'> = '/api/v1/executions/:id';
// @ts-expect-error -- a method the entry does not name
const wrongMethod: ServiceRoutePath<'webhook-dispatcher', 'PUT'> = '/api/v1/webhooks/:id';
type Narrow<S extends ServiceName> = string extends ServiceRoutePath<S, 'GET'> ? 'widened to string' : 'narrow';
const narrow: Array<Narrow<'auth' | 'test-case' | 'execution-runner' | 'discovery-crawler' | 'analysis' | 'webhook-dispatcher' | 'gateway'>> = ['narrow'];

describe('the route catalogues', () => {
  it('type each service path from its own entries', () => {
    expect([projectPath, snapshotPath, foreignPath, wrongMethod, ...narrow]).toHaveLength(5);
  });

  it('name every route once, each under the service whose file holds it', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(ROUTES.map((r) => r.service))).toEqual(new Set(['auth', 'test-case', 'execution-runner', 'discovery-crawler', 'analysis', 'webhook-dispatcher', 'gateway']));
  });

  it('tell an entry nobody mounts from a route nobody catalogued, whatever the parameter names', () => {
    const mounted = [
      { method: 'GET', path: '/api/v1/webhooks' },
      { method: 'GET', path: '/api/v1/webhooks/:id' },
      { method: 'GET', path: '/api/v1/webhooks/:id/stats' },
    ];
    const { unmounted, uncatalogued } = catalogueMismatches('webhook-dispatcher', mounted);
    expect(uncatalogued).toEqual(['GET /api/v1/webhooks/:id/stats']);
    expect(unmounted).toContain('POST /api/v1/webhooks');
    expect(unmounted).not.toContain('GET /api/v1/webhooks/{webhook_id}');
  });

  it('count an internal route as the serving service’s entry, and a route of every method as serving its path', () => {
    expect(catalogueMismatches('discovery-crawler', [{ method: 'PUT', path: '/internal/sessions/:id/enrichment' }]).uncatalogued).toEqual([]);
    expect(catalogueMismatches('gateway', [{ method: '*', path: '/mcp' }]).unmounted).toEqual(['GET /api/v1/openapi.json', 'GET /docs']);
  });
});
