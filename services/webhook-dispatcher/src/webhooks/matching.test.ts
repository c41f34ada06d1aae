import type { ConditionalRules } from '../db/database.js';
import { passesFilters, rulesHold, validateRules } from './matching.js';

const now = new Date('2026-11-22T23:30:00Z');
const input = (data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ event: 'x', data, now, ...extra });

describe('passesFilters', () => {
  it('lets events without a project or priority through and checks the ones that have them', () => {
    const f = { projects: ['p1'], priorities: ['critical'] };
    expect(passesFilters(f, { data: {} })).toBe(true);
    expect(passesFilters(f, { project_id: 'p1', data: { execution: { priority: 'critical' } } })).toBe(true);
    expect(passesFilters(f, { project_id: 'p2', data: {} })).toBe(false);
    expect(passesFilters(f, { data: { test_case: { project_id: 'p2' } } })).toBe(false);
    expect(passesFilters(f, { project_id: 'p1', data: { priority: 'high' } })).toBe(false);
    expect(passesFilters({ projects: [], priorities: [] }, { project_id: 'p9', data: { priority: 'low' } })).toBe(true);
  });
});

describe('conditional rules', () => {
  it('evaluates each field as data', () => {
    const rules = (r: ConditionalRules['rules'], match?: 'all' | 'any'): ConditionalRules => ({ rules: r, ...(match ? { match } : {}) });
    expect(rulesHold(null, input({}))).toBe(true);
    expect(rulesHold(rules([{ field: 'consecutive_failures', op: 'gte', value: 3 }]), input({}, { consecutiveFailures: 3 }))).toBe(true);
    expect(rulesHold(rules([{ field: 'consecutive_failures', op: 'gte', value: 3 }]), input({}, { consecutiveFailures: 2 }))).toBe(false);
    expect(rulesHold(rules([{ field: 'consecutive_failures', op: 'gte', value: 0 }]), input({}))).toBe(false);
    expect(rulesHold(rules([{ field: 'pass_rate', op: 'lt', value: 80 }]), input({ test_plan: { summary: { pass_rate: 79.9 } } }))).toBe(true);
    expect(rulesHold(rules([{ field: 'time_of_day', op: 'between', value: { from: '22:00', to: '06:00' } }]), input({}))).toBe(true);
    expect(rulesHold(rules([{ field: 'time_of_day', op: 'between', value: { from: '09:00', to: '17:00' } }]), input({}))).toBe(false);
    expect(rulesHold(rules([{ field: 'environment', op: 'in', value: ['prod', 'staging'] }]), input({ environment: { name: 'prod' } }))).toBe(true);
    expect(rulesHold(rules([{ field: 'environment', op: 'ne', value: 'prod' }]), input({}))).toBe(false);
    const mixed = rules([{ field: 'pass_rate', op: 'lt', value: 50 }, { field: 'environment', op: 'eq', value: 'prod' }], 'any');
    expect(rulesHold(mixed, input({ environment: 'prod' }))).toBe(true);
    expect(rulesHold({ ...mixed, match: 'all' }, input({ environment: 'prod' }))).toBe(false);
  });

  it('names rules whose operator or value does not fit the field', () => {
    expect(
      validateRules({
        rules: [
          { field: 'pass_rate', op: 'in', value: [1] },
          { field: 'pass_rate', op: 'gt', value: 101 },
          { field: 'consecutive_failures', op: 'eq', value: 1.5 },
          { field: 'time_of_day', op: 'between', value: { from: '9:00', to: '17:00' } },
          { field: 'environment', op: 'in', value: [] },
          { field: 'environment', op: 'eq', value: 'prod' },
        ],
      }).map((e) => e.field),
    ).toEqual(['conditional_rules.rules.0.op', 'conditional_rules.rules.1.value', 'conditional_rules.rules.2.value', 'conditional_rules.rules.3.value', 'conditional_rules.rules.4.value']);
  });
});
