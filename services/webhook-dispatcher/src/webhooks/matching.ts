import type { FieldError } from '@assay/contracts';
import type { ConditionalRule, ConditionalRules } from '../db/database.js';

/** What filters and rules look at: the bus event and the state the dispatcher keeps. */
export interface MatchInput {
  event: string;
  project_id?: string | undefined;
  data: Record<string, unknown>;
  /** Consecutive failures of the event's test case, this event included; undefined when it concerns none. */
  consecutiveFailures?: number | undefined;
  now: Date;
}

const obj = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The project an event concerns: the envelope's, else one named in its data. */
export function eventProject(input: Pick<MatchInput, 'project_id' | 'data'>): string | undefined {
  const d = input.data;
  return input.project_id ?? str(obj(d.execution)?.project_id) ?? str(obj(d.test_case)?.project_id) ?? str(obj(d.test_plan)?.project_id) ?? str(d.project_id);
}

/** The priority of the test case an event concerns, when it carries one. */
export function eventPriority(data: Record<string, unknown>): string | undefined {
  return str(obj(data.execution)?.priority) ?? str(obj(data.test_case)?.priority) ?? str(data.priority);
}

/**
 * Project and priority filters: an event tied to a project must be in the
 * list; an event carrying a priority must have a listed one. Events with no
 * project or priority (organization, billing) are not filtered by them.
 */
export function passesFilters(filters: { projects: string[]; priorities: string[] }, input: Pick<MatchInput, 'project_id' | 'data'>): boolean {
  const project = eventProject(input);
  if (filters.projects.length && project !== undefined && !filters.projects.includes(project)) return false;
  const priority = eventPriority(input.data);
  if (filters.priorities.length && priority !== undefined && !filters.priorities.includes(priority)) return false;
  return true;
}

const NUMERIC_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'];
const OPS_BY_FIELD: Record<ConditionalRule['field'], string[]> = {
  consecutive_failures: NUMERIC_OPS,
  pass_rate: NUMERIC_OPS,
  time_of_day: ['between'],
  environment: ['eq', 'ne', 'in'],
};
const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Field errors of rules that passed the JSON schema: ops that do not fit the field, values of the wrong kind. */
export function validateRules(rules: ConditionalRules): FieldError[] {
  const errors: FieldError[] = [];
  rules.rules.forEach((rule, i) => {
    const at = `conditional_rules.rules.${i}`;
    const ops = OPS_BY_FIELD[rule.field];
    if (!ops.includes(rule.op)) return errors.push({ field: `${at}.op`, message: `must be one of ${ops.join(', ')} for ${rule.field}` });
    const v = rule.value;
    if (rule.field === 'consecutive_failures' && !(Number.isInteger(v) && (v as number) >= 0)) errors.push({ field: `${at}.value`, message: 'must be a non-negative integer' });
    if (rule.field === 'pass_rate' && !(typeof v === 'number' && v >= 0 && v <= 100)) errors.push({ field: `${at}.value`, message: 'must be a number from 0 to 100 (percent)' });
    if (rule.field === 'time_of_day') {
      const range = obj(v);
      if (!range || !HH_MM.test(String(range.from)) || !HH_MM.test(String(range.to)) || Object.keys(range).length !== 2) {
        errors.push({ field: `${at}.value`, message: 'must be {"from": "HH:MM", "to": "HH:MM"} (UTC)' });
      }
    }
    if (rule.field === 'environment') {
      const ok = rule.op === 'in' ? Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') : typeof v === 'string';
      if (!ok) errors.push({ field: `${at}.value`, message: rule.op === 'in' ? 'must be a non-empty list of strings' : 'must be a string' });
    }
    return undefined;
  });
  return errors;
}

function compare(op: string, actual: number, expected: number): boolean {
  switch (op) {
    case 'eq': return actual === expected;
    case 'ne': return actual !== expected;
    case 'gt': return actual > expected;
    case 'gte': return actual >= expected;
    case 'lt': return actual < expected;
    case 'lte': return actual <= expected;
    default: return false;
  }
}

function eventEnvironment(data: Record<string, unknown>): string | undefined {
  return str(data.environment) ?? str(obj(data.environment)?.name) ?? str(obj(data.execution)?.environment) ?? str(obj(data.test_plan)?.environment);
}

function holds(rule: ConditionalRule, input: MatchInput): boolean {
  switch (rule.field) {
    case 'consecutive_failures':
      return input.consecutiveFailures !== undefined && compare(rule.op, input.consecutiveFailures, rule.value as number);
    case 'pass_rate': {
      const rate = obj(obj(input.data.test_plan)?.summary)?.pass_rate ?? obj(input.data.summary)?.pass_rate;
      return typeof rate === 'number' && compare(rule.op, rate, rule.value as number);
    }
    case 'time_of_day': {
      const { from, to } = rule.value as { from: string; to: string };
      const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
      const now = input.now.getUTCHours() * 60 + input.now.getUTCMinutes();
      const [a, b] = [minutes(from), minutes(to)];
      // A range like 22:00-06:00 wraps past midnight.
      return a <= b ? now >= a && now < b : now >= a || now < b;
    }
    case 'environment': {
      const env = eventEnvironment(input.data);
      if (env === undefined) return false;
      if (rule.op === 'in') return (rule.value as string[]).includes(env);
      return rule.op === 'eq' ? env === rule.value : env !== rule.value;
    }
  }
}

/**
 * Evaluates validated rules as data: no code from the caller ever runs. A
 * rule about something the event does not carry does not hold.
 */
export function rulesHold(rules: ConditionalRules | null, input: MatchInput): boolean {
  if (!rules) return true;
  const results = rules.rules.map((r) => holds(r, input));
  return (rules.match ?? 'all') === 'any' ? results.some(Boolean) : results.every(Boolean);
}
