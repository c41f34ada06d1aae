// The `request` step: its HTTP call, its assertions (`expect`) and the values it keeps (`save_as`).

/** The HTTP call of a `request` step. `url` is joined to the base URL unless absolute; `{{variables}}` work in every string. */
export interface StepRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON (`content-type: application/json` unless a header says otherwise); a string is sent as it is. */
  body?: unknown;
}

export const REQUEST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

export const REQUEST_LIMITS = { maxExpectations: 50, maxSaved: 50, maxHeaders: 50, expectationLength: 500, bodyBytes: 100_000 } as const;

/** One segment of a JSON path: a property name or an array index. */
export type JsonPathSegment = string | number;

export type Comparison = '=' | '!=' | '>' | '>=' | '<' | '<=';

export type Expectation =
  | { kind: 'status'; op: Comparison; expected: number; text: string }
  | { kind: 'exists'; path: JsonPathSegment[]; negate: boolean; text: string }
  | { kind: 'compare'; path: JsonPathSegment[]; op: Comparison; expected: unknown; text: string };

const NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*/;

/**
 * Parses a JSON path as `$`, `$.a.b`, `$.items[0].id`, `$.items.length`
 * (`.length` of an array or a string is its length).
 */
export function parseJsonPath(text: string): JsonPathSegment[] | { error: string } {
  const bad = { error: `"${text}" is not a JSON path: write $.field, $.items[0].id or $.items.length` };
  if (!text.startsWith('$')) return bad;
  const out: JsonPathSegment[] = [];
  let rest = text.slice(1);
  while (rest !== '') {
    if (rest.startsWith('.')) {
      const m = NAME.exec(rest.slice(1));
      if (!m) return bad;
      out.push(m[0]);
      rest = rest.slice(1 + m[0].length);
    } else {
      const m = /^\[(\d{1,6})\]/.exec(rest) ?? /^\["([^"\\]*)"\]/.exec(rest);
      if (!m) return bad;
      out.push(/^\[\d/.test(rest) ? Number(m[1]) : m[1]!);
      rest = rest.slice(m[0].length);
    }
  }
  return out;
}

/** The value at a path, or `undefined` when it is not there. */
export function readJsonPath(data: unknown, path: readonly JsonPathSegment[]): unknown {
  let cur: unknown = data;
  for (const seg of path) {
    if (cur === null || cur === undefined) return undefined;
    if (seg === 'length' && (Array.isArray(cur) || typeof cur === 'string')) cur = cur.length;
    else if (typeof seg === 'number') cur = Array.isArray(cur) ? cur[seg] : undefined;
    else cur = typeof cur === 'object' && Object.hasOwn(cur as object, seg) ? (cur as Record<string, unknown>)[seg] : undefined;
  }
  return cur;
}

const FORM = 'must be status<op>code (status=201), $.path exists, $.path !exists, or $.path<op>value with op one of = != > >= < <= ($.items.length>=3, $.name="Ada")';

/** A literal on the right of a comparison: JSON (`3`, `true`, `null`, `"text"`), else the bare text as a string. */
function literal(text: string): unknown {
  const t = text.trim();
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
}

/**
 * Parses one `expect` line of a `request` step:
 * `status=201`, `status>=200`, `$.id exists`, `$.error !exists`,
 * `$.items.length>=3`, `$.name="Ada"`, `$.total!=0`.
 */
export function parseExpectation(line: string): Expectation | { error: string } {
  const text = line.trim();
  const status = /^status\s*(=|!=|>=|<=|>|<)\s*(\d{3})$/.exec(text);
  if (status) return { kind: 'status', op: status[1] as Comparison, expected: Number(status[2]), text };
  if (text.startsWith('status')) return { error: `${FORM}; a status is three digits` };
  const exists = /^(\$\S*)\s+(!?)exists$/.exec(text);
  if (exists) {
    const path = parseJsonPath(exists[1]!);
    return 'error' in path ? path : { kind: 'exists', path, negate: exists[2] === '!', text };
  }
  const cmp = /^(\$[^\s=!<>]*)\s*(=|!=|>=|<=|>|<)\s*(.+)$/s.exec(text);
  if (!cmp) return { error: FORM };
  const path = parseJsonPath(cmp[1]!);
  if ('error' in path) return path;
  const op = cmp[2] as Comparison;
  const expected = literal(cmp[3]!);
  if (['>', '>=', '<', '<='].includes(op) && typeof expected !== 'number') return { error: `${FORM}; ${op} compares with a number` };
  return { kind: 'compare', path, op, expected, text };
}

function compare(actual: unknown, op: Comparison, expected: unknown): boolean {
  const same = JSON.stringify(actual) === JSON.stringify(expected) || (typeof actual !== 'string' && typeof expected === 'string' && String(actual) === expected);
  switch (op) {
    case '=':
      return same;
    case '!=':
      return !same;
    default:
      if (typeof actual !== 'number' || typeof expected !== 'number') return false;
      return op === '>' ? actual > expected : op === '>=' ? actual >= expected : op === '<' ? actual < expected : actual <= expected;
  }
}

const show = (v: unknown) => (v === undefined ? 'missing' : JSON.stringify(v).slice(0, 200));

/** Why the response fails the expectation, or undefined when it holds. Both values are in the message. */
export function checkExpectation(e: Expectation, status: number, json: unknown): string | undefined {
  if (e.kind === 'status') return compare(status, e.op, e.expected) ? undefined : `Expected status ${e.op} ${e.expected} but it is ${status}`;
  const actual = readJsonPath(json, e.path);
  if (e.kind === 'exists') {
    const there = actual !== undefined;
    if (there === !e.negate) return undefined;
    return e.negate ? `Expected ${e.text}: it is ${show(actual)}` : `Expected ${e.text}: the response has no such field`;
  }
  return compare(actual, e.op, e.expected) ? undefined : `Expected ${e.text} but it is ${show(actual)}`;
}

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The problems with a `request` step's `request`, `expect` and `save_as` (field paths under `at`). */
export function validateRequestStep(step: Record<string, unknown>, at: string): Array<{ field: string; message: string }> {
  const errors: Array<{ field: string; message: string }> = [];
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const r = step.request;
  if (!isObj(r)) errors.push({ field: `${at}.request`, message: 'is required for action "request": an object with method, url and optional headers and body' });
  else {
    for (const key of Object.keys(r)) if (!['method', 'url', 'headers', 'body'].includes(key)) errors.push({ field: `${at}.request.${key}`, message: 'is not a known request field' });
    if (typeof r.method !== 'string' || !(REQUEST_METHODS as readonly string[]).includes(r.method.toUpperCase())) {
      errors.push({ field: `${at}.request.method`, message: `must be one of ${REQUEST_METHODS.join(', ')}` });
    }
    if (typeof r.url !== 'string' || r.url.trim() === '' || r.url.length > 2000) errors.push({ field: `${at}.request.url`, message: 'must be a path (joined to the base URL) or an absolute http(s) URL, at most 2000 characters' });
    else if (/^[a-z][a-z0-9+.-]*:/i.test(r.url) && !/^https?:\/\//i.test(r.url) && !r.url.startsWith('{{')) errors.push({ field: `${at}.request.url`, message: 'must be http or https' });
    if (r.headers !== undefined) {
      if (!isObj(r.headers)) errors.push({ field: `${at}.request.headers`, message: 'must be an object of header names to strings' });
      else {
        const names = Object.keys(r.headers);
        if (names.length > REQUEST_LIMITS.maxHeaders) errors.push({ field: `${at}.request.headers`, message: `must have at most ${REQUEST_LIMITS.maxHeaders} headers` });
        for (const n of names) {
          if (!HEADER_NAME.test(n)) errors.push({ field: `${at}.request.headers.${n}`, message: 'is not a valid header name' });
          else if (typeof r.headers[n] !== 'string' || /[\r\n]/.test(r.headers[n] as string)) errors.push({ field: `${at}.request.headers.${n}`, message: 'must be a string on one line' });
        }
      }
    }
    if (r.body !== undefined && JSON.stringify(r.body).length > REQUEST_LIMITS.bodyBytes) errors.push({ field: `${at}.request.body`, message: `must be at most ${REQUEST_LIMITS.bodyBytes} characters as JSON` });
  }
  const ex = step.expect;
  if (ex !== undefined) {
    if (!Array.isArray(ex) || ex.length > REQUEST_LIMITS.maxExpectations) errors.push({ field: `${at}.expect`, message: `must be an array of at most ${REQUEST_LIMITS.maxExpectations} assertions` });
    else
      ex.forEach((line, j) => {
        if (typeof line !== 'string' || line.length > REQUEST_LIMITS.expectationLength) return void errors.push({ field: `${at}.expect[${j}]`, message: `must be a string of at most ${REQUEST_LIMITS.expectationLength} characters` });
        const parsed = parseExpectation(line);
        if ('error' in parsed) errors.push({ field: `${at}.expect[${j}]`, message: parsed.error });
      });
  }
  const sa = step.save_as;
  if (sa !== undefined) {
    if (!isObj(sa) || Object.keys(sa).length > REQUEST_LIMITS.maxSaved) errors.push({ field: `${at}.save_as`, message: `must be an object of at most ${REQUEST_LIMITS.maxSaved} variable names to JSON paths ({"order_id": "$.id"})` });
    else
      for (const [name, p] of Object.entries(sa)) {
        if (!VAR_NAME.test(name) || name.startsWith('secret.')) errors.push({ field: `${at}.save_as.${name}`, message: 'is not a valid variable name (letters, digits, _ . -; not secret.*)' });
        else if (typeof p !== 'string') errors.push({ field: `${at}.save_as.${name}`, message: 'must be a JSON path such as $.id' });
        else {
          const parsed = parseJsonPath(p);
          if ('error' in parsed) errors.push({ field: `${at}.save_as.${name}`, message: parsed.error });
        }
      }
  }
  return errors;
}
