import { PLAN_NAMES, routeMatcher } from '@assay/contracts';
import { PLANS, servicePrincipal, type Principal } from '@assay/principal';
import { planRefusal, quotaRefusal, type ExceededQuota } from './access.js';

const principal = (plan: Principal['plan']): Principal => ({ org_id: 'o', sub: 'k', kind: 'service_key', role: 'admin', scopes: [], plan });
const used = (quota: ExceededQuota['quota']): ExceededQuota => ({ quota, used: 10, limit: 10, unit: 'x', resets_at: '2027-01-01T00:00:00.000Z' });
const router = routeMatcher();
/** The catalogue entry of a call (the gateway's own resolution). */
const routeOf = (method: string, path: string) => {
  const match = router.match(method, path);
  if (!match) throw new Error(`${method} ${path} is in no catalogue entry`);
  return match.route;
};

describe('plan access', () => {
  it('knows the same plans as the catalog', () => {
    expect([...PLANS]).toEqual([...PLAN_NAMES]);
  });

  it('refuses a plan without API access everywhere but the account routes, and never a paid plan or a service', () => {
    expect(planRefusal(principal('free'), routeOf('GET', '/api/v1/test-cases'))?.toBody()).toMatchObject({ error: 'insufficient_permissions', details: { plan: 'free', api_access: false } });
    expect(planRefusal(principal('free'), routeOf('GET', '/v1/projects'))).not.toBeNull();
    expect(planRefusal(principal('free'), routeOf('GET', '/api/service-keys'))).not.toBeNull();
    expect(planRefusal(principal('free'), routeOf('GET', '/api/organizations/current/usage'))).toBeNull();
    expect(planRefusal(principal('free'), routeOf('GET', '/api/auth/me'))).toBeNull();
    expect(planRefusal(principal('free'), routeOf('POST', '/api/auth/logout'))).toBeNull();
    expect(planRefusal(principal('starter'), routeOf('GET', '/api/v1/test-cases'))).toBeNull();
    expect(planRefusal(servicePrincipal('gateway'), routeOf('GET', '/api/v1/test-cases'))).toBeNull();
  });
});

describe('quota refusals', () => {
  it('refuses only new work of the used-up kind', () => {
    expect(quotaRefusal(routeOf('POST', '/api/v1/executions'), [used('executions')])?.status).toBe(403);
    expect(quotaRefusal(routeOf('POST', '/api/executions/async'), [used('browser_minutes')])?.status).toBe(403);
    expect(quotaRefusal(routeOf('POST', '/api/v1/test-runs'), [used('browser_minutes')])?.status).toBe(403);
    expect(quotaRefusal(routeOf('POST', '/api/v1/test-runs/r1/save'), [used('executions')])).toBeNull();
    expect(quotaRefusal(routeOf('POST', '/api/v1/recordings'), [used('browser_minutes')])?.message).toMatch(/^Monthly quota of browser minutes exceeded .* new recordings are refused/);
    expect(quotaRefusal(routeOf('POST', '/api/v1/recordings'), [used('executions')])).toBeNull();
    expect(quotaRefusal(routeOf('POST', '/api/v1/recordings/r1/input'), [used('browser_minutes')])).toBeNull();
    expect(quotaRefusal(routeOf('POST', '/api/v1/discovery/start'), [used('executions')])).toBeNull();
    expect(quotaRefusal(routeOf('POST', '/api/v1/discovery/start'), [used('discovery_pages')])?.message).toMatch(/^Monthly quota of discovery pages exceeded .* new discovery sessions are refused until it resets at 2027-01-01T00:00:00.000Z$/);
    expect(quotaRefusal(routeOf('POST', '/api/v1/discovery/s1/resume'), [used('discovery_pages')])).toBeNull();
    expect(quotaRefusal(routeOf('GET', '/api/v1/executions'), [used('executions')])).toBeNull();
    expect(quotaRefusal(routeOf('DELETE', '/api/v1/executions/e1'), [used('executions')])).toBeNull();
    expect(quotaRefusal(routeOf('POST', '/api/v1/executions'), undefined)).toBeNull();
  });
});

describe('the test-case endpoints', () => {
  it.each([
    ['GET', '/api/v1/test-cases', true],
    ['POST', '/api/test-cases/bulk-delete', true],
    ['POST', '/api/v1/test-cases/import', true],
    ['POST', '/api/v1/test-plans/tp/test-cases', true],
    ['DELETE', '/api/test-plans/tp/test-cases/tc', true],
    ['GET', '/api/v1/test-plans/tp', false],
    ['GET', '/api/v1/test-plans/tp/schedules', false],
    ['GET', '/api/v1/projects', false],
  ])('%s %s counts in the test-case bucket: %s', (method, path, expected) => {
    expect(routeOf(method, path).rateBucket === 'test_cases').toBe(expected);
  });
});
