import { API_KEY_SCOPES, requiredScope } from './index.js';

describe('requiredScope', () => {
  it.each([
    ['GET', '/api/v1/test-cases', 'test_cases:read'],
    ['HEAD', '/api/v1/test-cases/tc_1', 'test_cases:read'],
    ['POST', '/api/v1/test-cases', 'test_cases:write'],
    ['PATCH', '/api/v1/test-cases/tc_1', 'test_cases:write'],
    ['GET', '/api/v1/test-plans/tp_1', 'test_cases:read'],
    ['DELETE', '/api/test-cases/tc_1', 'test_cases:write'],
    ['POST', '/api/v1/executions', 'executions:write'],
    ['GET', '/api/v1/executions/ex_1/failure-analysis', 'executions:read'],
    ['POST', '/api/v1/executions/ex_1/failure-analysis/tc_1/apply', 'executions:write'],
    ['GET', '/api/v1/issues', 'executions:read'],
    ['PATCH', '/api/v1/issues/i_1', 'executions:write'],
    ['GET', '/api/v1/test-cases/tc_1/flakiness', 'test_cases:read'],
    ['GET', '/api/executions', 'executions:read'],
    ['GET', '/api/v1/artifacts/a/b.png', 'executions:read'],
    ['GET', '/api/v1/projects', 'projects:read'],
    ['POST', '/api/projects', 'projects:write'],
    ['GET', '/v1/projects', 'projects:read'],
    ['PUT', '/v1/projects/p_1', 'projects:write'],
    ['GET', '/api/v1/discovery/sessions', 'discovery:read'],
    ['POST', '/api/v1/discovery', 'discovery:write'],
    ['GET', '/api/v1/webhooks', 'webhooks:manage'],
    ['POST', '/api/v1/webhooks/wh_1/test', 'webhooks:manage'],
    ['GET', '/api/service-keys', 'keys:manage'],
    ['DELETE', '/api/service-keys/x', 'keys:manage'],
    ['POST', '/api/api-keys', 'keys:manage'],
    ['GET', '/api/organizations/current', 'organization:read'],
    ['GET', '/api/auth/me', 'organization:read'],
    ['POST', '/api/organizations/current/transfer-ownership', 'organization:write'],
    ['DELETE', '/api/organizations/current', 'organization:write'],
    ['POST', '/api/v1/test-plans/tp_1/schedules', 'executions:write'],
    ['GET', '/api/v1/test-plans/tp_1/schedules/s_1', 'executions:read'],
    ['GET', '/api/test-plans/tp_1/schedules', 'executions:read'],
    ['POST', '/api/v1/test-plans/tp_1/test-cases', 'test_cases:write'],
  ])('requires for %s %s the scope %s', (method, path, scope) => {
    expect(requiredScope(method, path)).toBe(scope);
  });

  it.each([
    ['GET', '/healthz'],
    ['GET', '/readyz'],
    ['GET', '/docs'],
    ['POST', '/mcp'],
    ['GET', '/api/v1/openapi.json'],
    ['GET', '/internal/plans/p_1/cases'],
    ['GET', '/'],
  ])('needs no scope for %s %s', (method, path) => {
    expect(requiredScope(method, path)).toBeNull();
  });

  it('matches whole path segments only', () => {
    expect(requiredScope('GET', '/api/v1/projectsx')).toBeNull();
    expect(requiredScope('GET', '/api/v1/test-cases-archive')).toBeNull();
    expect(requiredScope('GET', '/api/service-keysmith')).toBeNull();
    expect(requiredScope('GET', '/api/v1/webhooksy')).toBeNull();
  });

  it('returns only scopes a key can hold, except organization:write, which no scoped key can hold', () => {
    const paths = [
      '/api/v1/test-cases',
      '/api/v1/executions',
      '/api/v1/projects',
      '/api/v1/discovery',
      '/api/v1/webhooks',
      '/api/service-keys',
      '/api/organizations/current',
    ];
    const produced = new Set(paths.flatMap((p) => ['GET', 'POST'].map((m) => requiredScope(m, p))));
    produced.delete('organization:write');
    for (const scope of produced) expect(API_KEY_SCOPES as readonly (string | null)[]).toContain(scope);
    expect(API_KEY_SCOPES).not.toContain('organization:write');
  });
});

describe('scopes of exploratory runs and reports', () => {
  it('puts test runs and reports in the executions area', () => {
    expect(requiredScope('POST', '/api/v1/test-runs')).toBe('executions:write');
    expect(requiredScope('GET', '/api/v1/test-runs/r1')).toBe('executions:read');
    expect(requiredScope('POST', '/api/v1/reports/r1/snapshots')).toBe('executions:write');
    expect(requiredScope('GET', '/api/v1/reports')).toBe('executions:read');
  });
});
