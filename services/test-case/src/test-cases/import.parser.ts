import Papa, { type ParseError } from 'papaparse';
import type { StepActionInfo } from '@assay/contracts';
import { isSideProject, mapSideTest } from './import.side.js';
import { STEP_ACTIONS, validateSteps, type StepAction } from './steps.js';

/** Most test cases one import file may hold (spec, Limits: "10,000 test cases per file"). */
export const MAX_IMPORT_CASES = 10_000;

/** Bounds of the case fields; the step bounds are STEP_LIMITS. See docs/import-format.md. */
const CASE_LIMITS = { nameLength: 200, descriptionLength: 5000, tags: 50, tagLength: 50 } as const;

/** How many problems one row error lists before it says "and N more". */
const PROBLEMS_SHOWN = 3;

/** One importable test case; `steps` already pass validateSteps, ready for normaliseSteps. */
export interface ImportCandidate {
  /** 1-based position of the test case in the file (CSV: data rows, header not counted). */
  row: number;
  name: string;
  description?: string;
  /** JSON only, when the item carries a valid `tags` array. */
  tags?: string[];
  steps: Array<Record<string, unknown>>;
}

/** `error` always starts with `row N: `. `name` is the trimmed name when the row has one. */
export type ImportRow = { ok: true; candidate: ImportCandidate } | { ok: false; row: number; name: string | null; error: string };

export interface ParsedImport {
  format: 'csv' | 'json' | 'side';
  /** Every test case of the file in file order, valid or not. */
  rows: ImportRow[];
}

/** Whole-file problems: 400 (malformed / bad header / not an array), 413 (more than MAX_IMPORT_CASES cases), 415 (not CSV, JSON or .side, binary, not UTF-8). */
export class ImportFileError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ImportFileError';
  }
}

/** The largest import file read (a larger one is refused with 413 while it is read). */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

/**
 * Parses an uploaded CSV, JSON or Selenium IDE (`.side`) file of test cases into one entry per case.
 * Row problems become `{ok: false}` entries and never stop the other rows.
 * Pure: no I/O. Format rules and the step cell grammar: docs/import-format.md.
 *
 * @throws ImportFileError for problems with the file as a whole.
 */
export function parseImportFile(content: Buffer, meta: { filename?: string; mimetype?: string }): ParsedImport {
  const text = decodeText(content);
  const format = detectFormat(text, meta);
  if (format === 'csv') return { format, rows: parseCsv(text) };
  const root = parseJsonText(text);
  if (isSideProject(root)) return { format: 'side', rows: parseSide(root.tests) };
  if (format === 'side') {
    throw new ImportFileError(400, 'the .side file is not a Selenium IDE project: expected {"version": ..., "tests": [...]}');
  }
  return { format, rows: parseJson(root) };
}

/**
 * Parses one CSV step cell (`<action>:<selector>:<value>` and its variants) into a
 * step object `{action, selector?, value?, timeout?}`. Checks the grammar only:
 * limits and empty parameters are left to validateSteps.
 */
export function parseStepCell(cell: string): { step: Record<string, unknown> } | { error: string } {
  const colon = cell.indexOf(':');
  const action = (colon === -1 ? cell : cell.slice(0, colon)).trim().toLowerCase();
  if (action === '') return { error: colon === -1 ? 'is empty' : 'has no action before the first colon' };
  if (!Object.hasOwn(STEP_ACTIONS, action)) {
    return { error: `unknown action "${action}"; use one of ${Object.keys(STEP_ACTIONS).join(', ')}` };
  }
  const rule: StepActionInfo = STEP_ACTIONS[action as StepAction];
  const rest = colon === -1 ? undefined : cell.slice(colon + 1);

  if (action === 'wait') {
    if (rest === undefined) return { error: `"wait" needs a selector and a timeout: wait:<selector>:<milliseconds>` };
    const last = findColon(rest, 'last');
    if (last === -1) return { error: `"wait" needs a timeout in milliseconds after the selector: wait:<selector>:<milliseconds>` };
    const timeout = rest.slice(last + 1).trim();
    if (!/^[0-9]+$/.test(timeout) || Number(timeout) === 0) {
      return { error: `"wait" timeout must be a positive whole number of milliseconds, not "${timeout}"` };
    }
    return { step: { action, selector: unescapeSelector(rest.slice(0, last)), timeout: Number(timeout) } };
  }
  if (action === 'request') {
    // request:{"request": {...}, "expect": [...], "save_as": {...}}: the step's JSON fields after the colon.
    const form = 'request:{"request": {"method": "POST", "url": "/api/items", "body": {...}}, "expect": ["status=201"], "save_as": {"id": "$.id"}}';
    let call: unknown;
    try {
      call = JSON.parse(rest ?? '');
    } catch {
      return { error: `"request" needs a JSON object after the colon: ${form}` };
    }
    if (typeof call !== 'object' || call === null || Array.isArray(call)) return { error: `"request" needs a JSON object after the colon: ${form}` };
    const c = call as Record<string, unknown>;
    const bad = Object.keys(c).find((k) => !['request', 'expect', 'save_as'].includes(k));
    if (bad !== undefined) return { error: `"request" JSON has an unknown field "${bad}": ${form}` };
    return { step: { action, ...c } };
  }
  if (action === 'assert_screenshot') {
    // assert_screenshot[:<selector>[:<name>[:<JSON options>]]]: names hold no colon, so what follows the name's colon is the options.
    const form = 'assert_screenshot:<selector>:<name>:{"mask": ["#clock"], "threshold": 0.1, "max_diff_ratio": 0.001}';
    if (rest === undefined || rest.trim() === '') return { step: { action } };
    const end = findColon(rest, 'first');
    const selector = unescapeSelector(end === -1 ? rest : rest.slice(0, end)).trim();
    const tail = end === -1 ? '' : rest.slice(end + 1);
    const optionsAt = tail.indexOf(':');
    const value = (optionsAt === -1 ? tail : tail.slice(0, optionsAt)).trim();
    let options: Record<string, unknown> = {};
    if (optionsAt !== -1) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(tail.slice(optionsAt + 1));
      } catch {
        return { error: `"assert_screenshot" options must be a JSON object after the name's colon: ${form}` };
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: `"assert_screenshot" options must be a JSON object after the name's colon: ${form}` };
      const bad = Object.keys(parsed).find((k) => !['mask', 'threshold', 'max_diff_ratio'].includes(k));
      if (bad !== undefined) return { error: `"assert_screenshot" options have an unknown field "${bad}": ${form}` };
      options = parsed as Record<string, unknown>;
    }
    return { step: { action, ...(selector !== '' ? { selector } : {}), ...(value !== '' ? { value } : {}), ...options } };
  }
  if (rule.selector === 'optional' && rule.value === 'optional') {
    // assert_accessible, assert_accessible:<selector>, assert_accessible:<selector>:<value>, assert_accessible::<value>.
    if (rest === undefined || rest.trim() === '') return { step: { action } };
    const end = findColon(rest, 'first');
    const selector = unescapeSelector(end === -1 ? rest : rest.slice(0, end)).trim();
    const value = end === -1 ? '' : rest.slice(end + 1).trim();
    return { step: { action, ...(selector !== '' ? { selector } : {}), ...(value !== '' ? { value } : {}) } };
  }
  if (rule.selector === 'no' && rule.value === 'no') {
    // go_back, go_forward, reload: nothing after the action (a trailing colon is forgiven).
    if (rest !== undefined && rest.trim() !== '') return { error: `"${action}" takes no parameters: write just ${action}` };
    return { step: { action } };
  }
  if (rule.selector === 'optional' && rule.value === 'required') {
    // press:<key> on the page, press:<selector>:<key> on an element.
    if (rest === undefined) return { error: `"${action}" needs a key: ${action}:<key> or ${action}:<selector>:<key>` };
    const end = findColon(rest, 'first');
    if (end === -1) return { step: { action, value: unescapeSelector(rest) } };
    return { step: { action, selector: unescapeSelector(rest.slice(0, end)), value: rest.slice(end + 1).trim() } };
  }
  if (rule.selector === 'no') {
    if (rest === undefined) return { error: `"${action}" needs a value after a colon: ${action}:<value>` };
    return { step: { action, value: rest } };
  }
  if (rule.value === 'required') {
    if (rest === undefined) return { error: `"${action}" needs a selector and a value: ${action}:<selector>:<value>` };
    const end = findColon(rest, 'first');
    if (end === -1) return { error: `"${action}" needs a value after the selector` };
    return { step: { action, selector: unescapeSelector(rest.slice(0, end)), value: rest.slice(end + 1) } };
  }
  // Selector-only actions take the rest verbatim, so pseudo-classes need no escaping: click:a:hover.
  const selector = rest?.trim() ?? '';
  if (rule.selector === 'optional') return { step: selector === '' ? { action } : { action, selector } };
  if (rest === undefined) return { error: `"${action}" needs a selector after a colon: ${action}:<selector>` };
  return { step: { action, selector } };
}

function decodeText(content: Buffer): string {
  if (content.includes(0)) {
    throw new ImportFileError(415, 'the file is binary (it contains NUL bytes); upload a CSV (UTF-8) or JSON file');
  }
  try {
    // Drops a leading UTF-8 BOM too (ignoreBOM defaults to false).
    return new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    throw new ImportFileError(415, 'the file is not valid UTF-8 text; upload a CSV (UTF-8) or JSON file');
  }
}

const CSV_MIMETYPES = new Set(['text/csv', 'application/csv', 'application/vnd.ms-excel']);

function detectFormat(text: string, meta: { filename?: string; mimetype?: string }): 'csv' | 'json' | 'side' {
  const extension = /\.([^./\\]+)$/.exec(meta.filename ?? '')?.[1]?.toLowerCase();
  if (extension === 'csv' || extension === 'json' || extension === 'side') return extension;
  const mimetype = meta.mimetype?.split(';')[0]?.trim().toLowerCase();
  if (mimetype !== undefined && CSV_MIMETYPES.has(mimetype)) return 'csv';
  if (mimetype === 'application/json') return 'json';
  // A CSV cannot start with a valid header and `{`, so `{` is sniffed as JSON for the better error.
  const first = /\S/.exec(text)?.[0];
  return first === '[' || first === '{' ? 'json' : 'csv';
}

function parseCsv(text: string): ImportRow[] {
  const result = Papa.parse<string[]>(text, { delimiter: ',', header: false, skipEmptyLines: 'greedy' });
  const error = result.errors[0];
  if (error) {
    // papaparse's error.row counts the blank lines it skipped, so the line is computed from the offset.
    const line = lineOf(text, error.index ?? 0);
    throw new ImportFileError(400, `CSV line ${line}: ${describeCsvError(error)}`, { line, code: error.code });
  }
  const [header, ...records] = result.data;
  checkHeader(header);
  if (records.length > MAX_IMPORT_CASES) throw tooManyCases(records.length);
  return records.map((cells, i) => parseCsvRow(cells, i + 1, header.length));
}

function describeCsvError(error: ParseError): string {
  const hint = 'quote cells that contain commas, quotes or line breaks, and double quotes inside them ("")';
  if (error.code === 'MissingQuotes') return `a quoted cell is never closed (MissingQuotes); ${hint}`;
  if (error.code === 'InvalidQuotes') return `a quoted cell has text after its closing quote (InvalidQuotes); ${hint}`;
  return `${error.message} (${error.code})`;
}

function lineOf(text: string, index: number): number {
  return (text.slice(0, index).match(/\r\n|\r|\n/g)?.length ?? 0) + 1;
}

const HEADER_FORM = 'the header must be Name,Description,Step 1,Step 2,...';

function checkHeader(header: string[] | undefined): asserts header is string[] {
  if (header === undefined) throw new ImportFileError(400, `the CSV file is empty; ${HEADER_FORM}`);
  header.forEach((raw, i) => {
    const cell = raw.trim();
    const expected = i === 0 ? 'Name' : i === 1 ? 'Description' : `Step ${i - 1}`;
    const step = /^step\s*([0-9]+)$/i.exec(cell);
    const ok = i < 2 ? cell.toLowerCase() === expected.toLowerCase() : step !== null && Number(step[1]) === i - 1;
    if (!ok) {
      const found = cell === '' ? 'is empty' : `is "${cell}"`;
      throw new ImportFileError(400, `CSV header column ${i + 1} ${found}; expected "${expected}" (${HEADER_FORM})`, {
        column: i + 1,
        found: cell,
        expected,
      });
    }
  });
  if (header.length < 3) {
    throw new ImportFileError(400, `CSV header has ${header.length} column(s); ${HEADER_FORM} with at least one Step column`);
  }
}

function parseCsvRow(cells: string[], row: number, width: number): ImportRow {
  const name = (cells[0] ?? '').trim();
  if (cells.length > width) {
    // Usually an unquoted comma split a cell: refuse rather than guess.
    return failure(row, name, [`has ${cells.length} cells but the header has ${width} columns; quote cells that contain commas`]);
  }
  const problems = [...checkName(name), ...checkDescription(cells[1])];
  const steps: Array<Record<string, unknown>> = [];
  const stepNumbers: number[] = []; // the "Step n" column of each parsed step, for messages
  const grammarProblems: string[] = [];
  for (let c = 2; c < cells.length; c++) {
    const cell = cells[c] ?? '';
    if (cell.trim() === '') continue;
    const parsed = parseStepCell(cell);
    if ('error' in parsed) grammarProblems.push(`step ${c - 1}: ${parsed.error}`);
    else {
      steps.push(parsed.step);
      stepNumbers.push(c - 1);
    }
  }
  problems.push(...grammarProblems);
  // With every cell unreadable, "must contain at least 1 step" would only add noise.
  if (steps.length > 0 || grammarProblems.length === 0) {
    for (const e of validateSteps(steps)) {
      const at = /^steps\[([0-9]+)\]\.(.+)$/.exec(e.field);
      problems.push(at ? `step ${stepNumbers[Number(at[1])]}: ${at[2]} ${e.message}` : `${e.field} ${e.message}`);
    }
  }
  if (problems.length > 0) return failure(row, name, problems);
  const description = cells[1]?.trim() ? cells[1] : undefined;
  return { ok: true, candidate: { row, name, ...(description !== undefined && { description }), steps } };
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ImportFileError(400, `malformed JSON: ${(e as Error).message}`);
  }
}

/** Selenium IDE tests, one row each; see import.side.ts for the command table. */
function parseSide(tests: unknown[]): ImportRow[] {
  if (tests.length > MAX_IMPORT_CASES) throw tooManyCases(tests.length);
  return tests.map((test, i) => {
    const row = i + 1;
    const { name, steps, commands, problems } = mapSideTest(test);
    problems.unshift(...checkName(name), ...checkStorable('name', name));
    // Every command unmapped: "must contain at least 1 step" would only add noise.
    if (steps.length > 0 || problems.length === 0) {
      for (const e of validateSteps(steps)) {
        const at = /^steps\[([0-9]+)\]\.(.+)$/.exec(e.field);
        problems.push(at ? `${commands[Number(at[1])]}: ${at[2]} ${e.message}` : `${e.field} ${e.message}`);
      }
      steps.forEach((step, s) => {
        for (const key of ['selector', 'value'] as const) {
          const v = step[key];
          if (typeof v === 'string') problems.push(...checkStorable(`${commands[s]} ${key}`, v));
        }
      });
    }
    return problems.length > 0 ? failure(row, name, problems) : { ok: true, candidate: { row, name, steps } };
  });
}

function parseJson(root: unknown): ImportRow[] {
  if (!Array.isArray(root)) {
    throw new ImportFileError(400, 'the file must be a JSON array of test cases: [{"name": ..., "description": ..., "steps": [...]}]');
  }
  if (root.length > MAX_IMPORT_CASES) throw tooManyCases(root.length);
  return root.map((item, i) => parseJsonItem(item, i + 1));
}

function parseJsonItem(item: unknown, row: number): ImportRow {
  if (!isObject(item)) return failure(row, '', ['must be an object {name, description?, steps}']);
  const problems: string[] = [];
  const name = typeof item.name === 'string' ? item.name.trim() : '';
  if (item.name !== undefined && item.name !== null && typeof item.name !== 'string') problems.push('name must be a string');
  else problems.push(...checkName(name), ...checkStorable('name', name));

  let description: string | undefined;
  if (typeof item.description === 'string') {
    problems.push(...checkDescription(item.description), ...checkStorable('description', item.description));
    if (item.description.trim() !== '') description = item.description;
  } else if (item.description !== undefined && item.description !== null) problems.push('description must be a string');

  let tags: string[] | undefined;
  if (item.tags !== undefined && item.tags !== null) {
    const valid =
      Array.isArray(item.tags) &&
      item.tags.length <= CASE_LIMITS.tags &&
      item.tags.every((t) => typeof t === 'string' && t.length <= CASE_LIMITS.tagLength);
    if (valid) {
      tags = item.tags as string[];
      tags.forEach((t, i) => problems.push(...checkStorable(`tags[${i}]`, t)));
    } else {
      problems.push(`tags must be an array of at most ${CASE_LIMITS.tags} strings of at most ${CASE_LIMITS.tagLength} characters`);
    }
  }

  problems.push(...validateSteps(item.steps, 'steps').map((e) => `${e.field} ${e.message}`));
  if (Array.isArray(item.steps)) {
    item.steps.forEach((step, i) => {
      if (!isObject(step)) return;
      for (const key of ['selector', 'value', 'description', 'step_id']) {
        const v = step[key];
        if (typeof v === 'string') problems.push(...checkStorable(`steps[${i}].${key}`, v));
      }
    });
  }
  if (problems.length > 0) return failure(row, name, problems);
  const steps = item.steps as Array<Record<string, unknown>>;
  return {
    ok: true,
    candidate: { row, name, ...(description !== undefined && { description }), ...(tags !== undefined && { tags }), steps },
  };
}

function checkName(name: string): string[] {
  if (name === '') return ['name is required'];
  if (name.length > CASE_LIMITS.nameLength) return [`name must be at most ${CASE_LIMITS.nameLength} characters`];
  return [];
}

function checkDescription(description: string | undefined): string[] {
  if (description !== undefined && description.length > CASE_LIMITS.descriptionLength) {
    return [`description must be at most ${CASE_LIMITS.descriptionLength} characters`];
  }
  return [];
}

// JSON escapes can carry "\u0000" and lone surrogates, which Postgres refuses in text and jsonb:
// refusing the row here keeps one bad case from failing the insert of the whole file.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function checkStorable(field: string, value: string): string[] {
  return value.includes('\u0000') || LONE_SURROGATE.test(value) ? [`${field} contains a NUL character or an unpaired surrogate, which cannot be stored`] : [];
}

function failure(row: number, name: string, problems: string[]): ImportRow {
  const shown = problems.slice(0, PROBLEMS_SHOWN).join('; ');
  const more = problems.length > PROBLEMS_SHOWN ? `; and ${problems.length - PROBLEMS_SHOWN} more` : '';
  return { ok: false, row, name: name === '' ? null : name, error: `row ${row}: ${shown}${more}` };
}

function tooManyCases(found: number): ImportFileError {
  return new ImportFileError(413, `the file holds ${found} test cases; at most ${MAX_IMPORT_CASES} can be imported at once`, {
    limit: MAX_IMPORT_CASES,
    found,
  });
}

/** Index of the first or last colon of `text` not written as `\:` (`\\` is an escaped backslash), or -1. */
function findColon(text: string, which: 'first' | 'last'): number {
  let found = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\' && (text[i + 1] === ':' || text[i + 1] === '\\')) i++;
    else if (ch === ':') {
      found = i;
      if (which === 'first') return found;
    }
  }
  return found;
}

function unescapeSelector(raw: string): string {
  return raw.replace(/\\([\\:])/g, '$1').trim();
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
