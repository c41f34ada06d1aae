import { EVENTS, contractValidator, isEvent, type EventData } from './index.js';

// One value of each consumed event's data, typed by EventData: the compiler holds it to the type, the validator to the schema.
const SAMPLES: { [N in keyof EventData]: EventData[N] } = {
  'auth.key.revoked': { key_id: 'k1', kind: 'api_key' },
  'auth.organization.status_changed': { status: 'suspended' },
  'auth.organization.access_changed': { reason: 'quota_exceeded' },
  'execution.requested': { execution_id: 'e1', attempt: 2 },
  'suite.shard.requested': { execution_id: 'e1', shard: 1, attempt: 1 },
  'suite.list.requested': { suite_version_id: 'v1', attempt: 1 },
  'test.plan.started': { execution_id: 'e1', test_plan: { id: 'tp', name: 'Plan', project_id: 'p', tests: [] } },
  'test.plan.completed': {
    execution_id: 'e1',
    status: 'completed',
    test_plan: {
      id: 'tp',
      name: 'Plan',
      project_id: 'p',
      project_name: 'Shop',
      started_at: '2026-11-28T00:00:00.000Z',
      completed_at: '2026-11-28T00:00:01.000Z',
      duration_ms: 1000,
      summary: { total: 1, passed: 1, failed: 0, skipped: 0, pass_rate: 100 },
      failed_tests: [],
      url: 'http://x/executions/e1',
    },
  },
  'test.execution.completed': { execution: { id: 'e1', test_case_id: 'tc', test_case_name: 'Case', project_id: 'p', project_name: 'Shop', status: 'passed', priority: 'high', duration_ms: 5 } },
  'discovery.session.completed': { session_id: 's1', target_url: 'http://shop.test', pages_found: 3, flows_detected: 1 },
  'test.completed': { execution_id: 'e1', status: 'cancelled', duration_ms: 1200 },
  'discovery.pages.crawled': { session_id: 's1', pages: 50 },
  'discovery.page.crawled': { session_id: 's1', url: 'http://shop.test/' },
  'billing.subscription.updated': { old_plan: 'starter', new_plan: 'growth', source: 'operator' },
};

describe('the typed data of consumed events', () => {
  it.each(Object.entries(SAMPLES))('types %s as its catalogue schema says', (event, data) => {
    expect(EVENTS[event]).toBeDefined();
    expect(contractValidator().validateEventData(event, data)).toEqual([]);
    // Every field the schema requires is one the type requires (the sample holds exactly those, and maybe more).
    const required = (EVENTS[event]!.data.required as string[] | undefined) ?? [];
    for (const field of required) expect(Object.keys(data)).toContain(field);
  });

  it('narrows an envelope by its event name', () => {
    const envelope: { event: string; data: unknown } = { event: 'discovery.page.crawled', data: SAMPLES['discovery.page.crawled'] };
    expect(isEvent(envelope, 'discovery.page.crawled') && envelope.data.url).toBe('http://shop.test/');
    expect(isEvent(envelope, 'auth.key.revoked')).toBe(false);
  });
});
