import { PLAN_NAMES } from '@assay/contracts';
import { PLANS, servicePrincipal, type Principal } from '@assay/principal';
import { isTestCaseEndpoint } from '../rate-limit/rate-limit.js';
import { planRefusal, quotaRefusal, type ExceededQuota } from './access.js';

const principal = (plan: Principal['plan']): Principal => ({ org_id: 'o', sub: 'k', kind: 'service_key', role: 'admin', scopes: [], plan });
const used = (quota: ExceededQuota['quota']): ExceededQuota => ({ quota, used: 10, limit: 10, unit: 'x', resets_at: '2027-01-01T00:00:00.000Z' });

describe('plan access', () => {
  it('knows the same plans as the catalog', () => {
    expect([...PLANS]).toEqual([...PLAN_NAMES]);
  });

  it('refuses a plan without API access everywhere but the account routes, and never a paid plan or a service', () => {
    expect(planRefusal(principal('free'), '/api/v1/test-cases')?.toBody()).toMatchObject({ error: 'insufficient_permissions', details: { plan: 'free', api_access: false } });
    expect(planRefusal(principal('free'), '/v1/projects')).not.toBeNull();
    expect(planRefusal(principal('free'), '/api/organizations/current/usage')).toBeNull();
    expect(planRefusal(principal('free'), '/api/auth/me')).toBeNull();
    expect(planRefusal(principal('starter'), '/api/v1/test-cases')).toBeNull();
    expect(planRefusal(servicePrincipal('gateway'), '/api/v1/test-cases')).toBeNull();
  });
});

describe('quota refusals', () => {
  it('refuses only new work of the used-up kind', () => {
    expect(quotaRefusal('POST', '/api/v1/executions', [used('executions')])?.status).toBe(403);
    expect(quotaRefusal('POST', '/api/executions/async', [used('browser_minutes')])?.status).toBe(403);
    expect(quotaRefusal('POST', '/api/v1/test-runs', [used('browser_minutes')])?.status).toBe(403);
    expect(quotaRefusal('POST', '/api/v1/test-runs/r1/save', [used('executions')])).toBeNull();
    expect(quotaRefusal('POST', '/api/v1/recordings', [used('browser_minutes')])?.message).toMatch(/^Monthly quota of browser minutes exceeded .* new recordings are refused/);
    expect(quotaRefusal('POST', '/api/v1/recordings', [used('executions')])).toBeNull();
    expect(quotaRefusal('POST', '/api/v1/recordings/r1/input', [used('browser_minutes')])).toBeNull();
    expect(quotaRefusal('POST', '/api/v1/discovery/start', [used('executions')])).toBeNull();
    expect(quotaRefusal('POST', '/api/v1/discovery/start', [used('discovery_pages')])?.message).toMatch(/^Monthly quota of discovery pages exceeded .* new discovery sessions are refused until it resets at 2027-01-01T00:00:00.000Z$/);
    expect(quotaRefusal('POST', '/api/v1/discovery/s1/resume', [used('discovery_pages')])).toBeNull();
    expect(quotaRefusal('GET', '/api/v1/executions', [used('executions')])).toBeNull();
    expect(quotaRefusal('DELETE', '/api/v1/executions/e1', [used('executions')])).toBeNull();
    expect(quotaRefusal('POST', '/api/v1/executions', undefined)).toBeNull();
  });
});

describe('the test-case endpoints', () => {
  it.each([
    ['/api/v1/test-cases', true],
    ['/api/test-cases/bulk-delete', true],
    ['/api/v1/test-cases/import', true],
    ['/api/v1/test-plans/tp/test-cases', true],
    ['/api/v1/test-plans/tp', false],
    ['/api/v1/test-plans/tp/schedules', false],
    ['/api/v1/projects', false],
  ])('%s is one: %s', (path, expected) => {
    expect(isTestCaseEndpoint(path)).toBe(expected);
  });
});
