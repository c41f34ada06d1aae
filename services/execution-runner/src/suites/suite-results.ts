import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { enqueueEvents } from '@assay/bus';
import { withTransaction } from '@assay/db';
import type { Logger } from '@assay/logger';
import type { ExecutionDatabase, ExecutionRow, StepOutcome, TestResultRow } from '../db/database.js';
import { appendStreamEvent } from '../executions/executions.repository.js';
import { artifactUrl, caseFinishedEvents, caseStartedEvent } from '../execution-events.js';
import { storeArtifact, type ArtifactLimits } from '../artifacts/artifacts.repository.js';
import { nameUuid } from './playwright-config.js';
import { addSuiteResult, holdsShard } from './suite-runs.repository.js';
import type { ReporterEvent } from './sandbox.js';

type Db = Kysely<ExecutionDatabase>;

/** Where a suite run's writes go and who may write them: this worker's shard. */
export interface ShardWriter {
  db: Db;
  schema: string;
  logger: Logger;
  publicBaseUrl: string;
  artifacts: ArtifactLimits;
  execution: ExecutionRow;
  shard: number;
  owner: string;
  /** The box's directory and uid: attachments are read from there, as that uid. */
  boxDir: string;
  boxUid: number;
}

interface Attempt {
  retry: number;
  status: string;
  duration_ms: number;
  error?: string;
  attachments: Array<{ name: string; content_type: string; artifact_id?: string; not_stored?: string }>;
}

/** One reporter `test_end` (or `test_begin`) as the reporter sends it. */
interface TestEvent {
  project: string;
  file: string;
  line: number;
  title_path: string[];
  retry: number;
  status?: string;
  outcome?: string;
  final?: boolean;
  duration_ms?: number;
  errors?: Array<{ message: string }>;
  steps?: Array<{ title: string; category: string; depth: number; duration_ms: number; error?: string }>;
  attachments?: Array<{ name: string; content_type: string; path: string }>;
  stdout?: string;
  stderr?: string;
  /** The project's viewport, `WIDTHxHEIGHT`, when it sets one. */
  viewport?: string | null;
}

/** The error type failure analysis reads, from a Playwright error's text. */
export function errorType(message: string): string {
  if (/Test timeout of \d+ms exceeded/.test(message)) return 'timeout';
  if (/net::ERR_|NS_ERROR_|page\.goto: /.test(message)) return 'navigation_failed';
  if (/expect\(.*\)\.(toHave|toContain|toBe|toEqual|toMatch)|Expected:|Expected string:|Expected pattern:/s.test(message)) return 'assertion_failed';
  if (/waiting for (locator|getBy|selector)|Timeout \d+ms exceeded/.test(message)) return 'element_not_found';
  return 'error';
}

/**
 * The bytes of an attachment the box wrote, read as the box's own uid (so a
 * link the suite made to a file of the runner's reads nothing it could not
 * read itself), within the artifact size cap; undefined when unreadable.
 */
function readAsBox(w: ShardWriter, file: string, maxBytes: number): Promise<Buffer | undefined> {
  const resolved = path.resolve(w.boxDir, file);
  if (!resolved.startsWith(w.boxDir + path.sep)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const child = spawn('setpriv', [`--reuid=${w.boxUid}`, `--regid=${w.boxUid}`, '--clear-groups', '--', 'head', '-c', String(maxBytes + 1), '--', resolved], { stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: '/usr/bin:/bin' } });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve(code === 0 ? Buffer.concat(chunks) : undefined));
  });
}

const kindOf = (contentType: string): 'screenshot' | 'trace' | 'attachment' =>
  contentType.startsWith('image/') ? 'screenshot' : contentType === 'application/zip' ? 'trace' : 'attachment';

/** Stores one attempt's attachments (traces, screenshots, videos) as artifacts of the run. */
async function storeAttachments(w: ShardWriter, e: TestEvent): Promise<Attempt['attachments']> {
  const out: Attempt['attachments'] = [];
  for (const a of (e.attachments ?? []).slice(0, 20)) {
    const data = await readAsBox(w, a.path, w.artifacts.maxBytes);
    const base = { name: String(a.name).slice(0, 200), content_type: String(a.content_type).slice(0, 100) };
    if (!data) {
      out.push({ ...base, not_stored: 'the file could not be read' });
      continue;
    }
    const id = await storeArtifact(w.db, w.artifacts, { org_id: w.execution.org_id, execution_id: w.execution.id, kind: kindOf(base.content_type), content_type: base.content_type, data, keep_days: w.execution.history_days }).catch((err: Error) => {
      out.push({ ...base, not_stored: err.message });
      return undefined;
    });
    if (id) out.push({ ...base, artifact_id: id });
  }
  return out;
}

/**
 * Turns one shard's reporter events into the run's results, stream events and
 * `test.execution.*` events, exactly as a case run writes them: a test's
 * start (its first attempt), each attempt (kept for retries and flaky), and
 * its end with its steps, errors, output and attachments.
 */
export class SuiteResultWriter {
  private readonly attempts = new Map<string, Attempt[]>();
  private byTestId: Map<string, TestResultRow> | undefined;
  /** Tests this shard finished. */
  finished = 0;

  constructor(
    private readonly w: ShardWriter,
    private readonly loadResults: () => Promise<TestResultRow[]>,
  ) {}

  private testId(e: TestEvent): string {
    const x = this.w.execution;
    return nameUuid(`${x.org_id}/${x.project_id}/${x.test_plan_name}`, e.project, e.file, ...e.title_path);
  }

  private async row(e: TestEvent): Promise<TestResultRow> {
    this.byTestId ??= new Map((await this.loadResults()).map((r) => [r.test_case_id, r]));
    const id = this.testId(e);
    let row = this.byTestId.get(id);
    if (!row) {
      // A test the listing did not select (Playwright's grep reads titles a little differently): it is reported all the same.
      row = await addSuiteResult(this.w.db, this.w.execution, { test_case_id: id, name: e.title_path.join(' › '), suite_test: { project: e.project, file: e.file, line: e.line, title_path: e.title_path, tags: [] } });
      this.byTestId.set(id, row);
    }
    return row;
  }

  /** Writes whatever the event says; events of other kinds are ignored. */
  async handle(event: ReporterEvent): Promise<void> {
    if (event.type === 'test_begin') await this.begin(event as unknown as TestEvent);
    if (event.type === 'test_end') await this.end(event as unknown as TestEvent);
  }

  private async begin(e: TestEvent): Promise<void> {
    if (e.retry !== 0) return;
    const row = await this.row(e);
    if (row.status !== 'pending') return;
    const { db, execution, schema, publicBaseUrl } = this.w;
    const startedAt = new Date();
    await withTransaction(db, async (trx) => {
      if (!(await holdsShard(trx, execution.id, this.w.shard, this.w.owner))) return;
      await trx.updateTable('test_results').set({ status: 'running', started_at: startedAt }).where('id', '=', row.id).where('status', '=', 'pending').execute();
      await appendStreamEvent(trx, execution.id, 'test_started', { test_id: row.test_case_id, name: row.name, position: row.position, shard: this.w.shard });
      await enqueueEvents(trx, schema, [caseStartedEvent(execution, row, startedAt, publicBaseUrl)]);
    });
  }

  private async end(e: TestEvent): Promise<void> {
    const row = await this.row(e);
    const attempt: Attempt = { retry: e.retry, status: String(e.status), duration_ms: Number(e.duration_ms ?? 0), ...(e.errors?.length ? { error: e.errors[0]!.message } : {}), attachments: await storeAttachments(this.w, e) };
    const attempts = [...(this.attempts.get(row.id) ?? []), attempt];
    this.attempts.set(row.id, attempts);
    if (e.final) await this.finish(row, e, attempts);
  }

  private async finish(row: TestResultRow, e: TestEvent, attempts: Attempt[]): Promise<void> {
    const { db, execution, schema, publicBaseUrl } = this.w;
    const status: 'passed' | 'failed' | 'skipped' = e.outcome === 'skipped' ? 'skipped' : e.outcome === 'expected' || e.outcome === 'flaky' ? 'passed' : 'failed';
    const steps: StepOutcome[] = (e.steps ?? []).map((s, i) => ({ step_id: `s${i + 1}`, name: s.title, category: s.category, depth: s.depth, status: s.error ? 'failed' : 'passed', duration_ms: s.duration_ms, ...(s.error ? { error: s.error } : {}) }));
    const failedStep = steps.findIndex((s) => s.status === 'failed');
    const error = status === 'failed' ? (e.errors?.[0]?.message ?? (e.status === 'interrupted' ? 'The test was interrupted' : `The test ended ${e.status}`)) : null;
    const last = attempts[attempts.length - 1]!;
    const screenshot = last.attachments.find((a) => a.artifact_id && a.content_type.startsWith('image/'))?.artifact_id ?? null;
    const trace = last.attachments.find((a) => a.artifact_id && a.name === 'trace')?.artifact_id ?? null;
    const completedAt = new Date();
    const startedAt = row.started_at ?? new Date(completedAt.getTime() - attempts.reduce((s, a) => s + a.duration_ms, 0));
    const durationMs = last.duration_ms;
    const suiteTest = { ...row.suite_test, outcome: e.outcome, flaky: e.outcome === 'flaky', retries: attempts.length - 1, attempts, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    const diagnostics = error ? { failed_step: { index: failedStep + 1, error_type: errorType(error) }, page_url: null, console_errors: [], page_errors: [], failed_requests: [], errors: (e.errors ?? []).slice(0, 5) } : null;
    await withTransaction(db, async (trx) => {
      if (!(await holdsShard(trx, execution.id, this.w.shard, this.w.owner))) return;
      const written = await trx
        .updateTable('test_results')
        .set({ status, duration_ms: durationMs, error, error_step: failedStep >= 0 ? failedStep + 1 : null, screenshot_artifact_id: screenshot, trace_artifact_id: trace, steps: JSON.stringify(steps), diagnostics: diagnostics ? JSON.stringify(diagnostics) : null, started_at: startedAt, completed_at: completedAt, suite_test: JSON.stringify(suiteTest) })
        .where('id', '=', row.id)
        .where('status', 'in', ['pending', 'running'])
        .executeTakeFirst();
      if (Number(written.numUpdatedRows) === 0) return;
      if (status !== 'skipped') await trx.updateTable('executions').set((eb) => (status === 'passed' ? { passed_tests: eb('passed_tests', '+', 1) } : { failed_tests: eb('failed_tests', '+', 1) })).where('id', '=', execution.id).execute();
      for (const s of steps) await appendStreamEvent(trx, execution.id, 'step_finished', { test_id: row.test_case_id, ...s });
      await appendStreamEvent(trx, execution.id, 'test_finished', {
        test_id: row.test_case_id,
        name: row.name,
        status,
        duration_ms: durationMs,
        ...(suiteTest.flaky ? { flaky: true } : {}),
        retries: suiteTest.retries,
        ...(error ? { error } : {}),
        ...(screenshot ? { screenshot: artifactUrl(publicBaseUrl, screenshot) } : {}),
        ...(trace ? { trace: artifactUrl(publicBaseUrl, trace) } : {}),
      });
      if (status === 'skipped') return;
      const events = caseFinishedEvents(
        execution,
        { ...row, status, error },
        {
          status,
          durationMs,
          startedAt,
          completedAt,
          ...(error ? { error: { message: error, type: diagnostics!.failed_step.error_type, step: failedStep + 1, step_description: failedStep >= 0 ? steps[failedStep]!.name : row.name } } : {}),
          screenshots: screenshot ? [artifactUrl(publicBaseUrl, screenshot)] : [],
          ...(trace ? { trace: artifactUrl(publicBaseUrl, trace) } : {}),
          pageUrl: execution.base_url,
          browser: 'chromium',
          viewport: e.viewport && /^\d+x\d+$/.test(e.viewport) ? e.viewport : '1280x720',
        },
        publicBaseUrl,
      );
      for (const ev of events) (ev.data.execution as Record<string, unknown>).flaky = suiteTest.flaky;
      await enqueueEvents(trx, schema, events);
    });
    this.finished += 1;
  }
}
