import { createHash } from 'node:crypto';
import { enqueueEvents } from '@assay/bus';
import { withTransaction } from '@assay/db';
import { AppError, conflict, iso, isUuid, notFound, validationError } from '@assay/http';
import type { Logger } from '@assay/logger';
import type { ExecutionContext } from '../context.js';
import type { SuiteRow, SuiteTest } from '../db/database.js';
import { unpackArchive, type ArchiveFile } from './archive.js';
import { findConfigFile, nameUuid, testListLine, wrapperConfig, WRAPPER_CONFIG } from './playwright-config.js';
import { BoxUnavailableError, PLAYWRIGHT_VERSION, SuiteBox, type ReporterEvent } from './sandbox.js';
import type { SuiteSettings } from './suite-settings.js';
import { findSuite, findVersion, insertSuiteVersion, listVersions, suiteFigures, type SuiteVersionInfo } from './suites.repository.js';

export interface SuiteUpload {
  project_id: string | undefined;
  name: string | undefined;
  /** Comma-separated playwright.config project names. */
  projects: string | undefined;
  archive: Buffer;
}

/** Packages a suite needs that the runner itself provides. */
const PROVIDED = new Set(['@playwright/test', 'playwright', 'playwright-core', 'typescript']);

/**
 * What the archive depends on: `runner` when it needs only @playwright/test
 * (the runner's), `archive` when it brings the rest in node_modules.
 * @throws AppError 400 naming a dependency the archive neither brings nor the runner provides.
 */
export function dependencyMode(files: ArchiveFile[]): 'runner' | 'archive' {
  const pkg = files.find((f) => f.path === 'package.json');
  if (!pkg) return 'runner';
  let json: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    json = JSON.parse(pkg.data.toString('utf8'));
  } catch {
    throw validationError([{ field: 'archive', message: 'package.json is not valid JSON' }]);
  }
  const wanted = Object.keys({ ...json.dependencies, ...json.devDependencies }).filter((d) => !PROVIDED.has(d) && !d.startsWith('@types/'));
  const paths = new Set(files.map((f) => f.path));
  const missing = wanted.filter((d) => !paths.has(`node_modules/${d}/package.json`));
  if (missing.length) {
    throw validationError([
      {
        field: 'archive',
        message: `depends on ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}, which the archive's node_modules does not hold: the runner provides @playwright/test ${PLAYWRIGHT_VERSION} only, and installing from a lockfile is not built yet, so pack node_modules into the archive`,
      },
    ]);
  }
  return wanted.length ? 'archive' : 'runner';
}

const asField = (field: string, message: string) => validationError([{ field, message }]);

/**
 * The tests a suite's files hold, as `playwright test --list` run in a box finds them.
 * @throws AppError 400 when Playwright cannot list them or finds none; 501 where no box can be made.
 */
export async function listTests(logger: Logger, settings: SuiteSettings, suiteKey: string, files: ArchiveFile[], configFile: string | undefined, projects: string[]) {
  const box = await SuiteBox.create(settings.box, settings.policy, logger, files).catch((err: unknown) => {
    if (err instanceof BoxUnavailableError) throw new AppError('not_implemented', err.message);
    throw err;
  });
  try {
    await box.write(WRAPPER_CONFIG, wrapperConfig(configFile, { baseURL: null, chromiumPath: settings.box.chromiumPath, projects, retries: null, workers: 1, trace: 'off' }));
    let begin: ReporterEvent | undefined;
    const errors: string[] = [];
    const outcome = await box.run({
      args: ['--config', WRAPPER_CONFIG, '--list'],
      timeoutMs: settings.listTimeoutMs,
      onEvent: (e) => {
        if (e.type === 'begin') begin = e;
        if (e.type === 'error') errors.push(String(e.message));
      },
    });
    if (outcome.timedOut) throw asField('archive', `listing its tests took longer than ${settings.listTimeoutMs / 1000} s`);
    if (!begin || errors.length || outcome.exitCode !== 0) {
      const why = errors.join('\n') || outcome.output.trim().split('\n').slice(-15).join('\n') || `exit code ${outcome.exitCode}`;
      throw asField('archive', `Playwright Test could not list its tests: ${why.slice(0, 4000)}`);
    }
    const shas = new Map(files.map((f) => [f.path, createHash('sha256').update(f.data).digest('hex')]));
    const rootDir = String(begin.root_dir);
    const prefix = rootDir.startsWith(box.dir) ? rootDir.slice(box.dir.length + 1) : '';
    const tests: SuiteTest[] = (begin.tests as Array<Omit<SuiteTest, 'id' | 'list_line' | 'file_sha'>>).map((t) => ({
      id: nameUuid(suiteKey, t.project, t.file, ...t.title_path),
      project: t.project,
      file: t.file,
      line: t.line,
      title_path: t.title_path,
      tags: t.tags,
      list_line: testListLine(t),
      file_sha: shas.get(prefix ? `${prefix}/${t.file}` : t.file) ?? '',
    }));
    if (tests.length === 0) throw asField('archive', `Playwright Test found no test${projects.length ? ` in project${projects.length > 1 ? 's' : ''} ${projects.join(', ')}` : ' in its Chromium projects'}`);
    return { tests, fullyParallel: begin.fully_parallel === true };
  } finally {
    await box.destroy();
  }
}

/** An upload's answer: the suite with the version stored (its tests, or none yet while `listing`). */
const uploadedBody = (suite: SuiteRow, version: SuiteVersionInfo) => ({ ...suiteBody(suite), version: versionBody(version, true) });

/**
 * Stores an uploaded Playwright project as a new, immutable version of the
 * suite `name` of the project (the suite itself on its first upload), with
 * the tests `playwright test --list` finds in it (run in a box: listing loads
 * the suite's config and spec files, which is running tenant code). A runner
 * that lists on upload (it can make the box) answers with the tests
 * (`listed`); one that cannot stores the version as `listing` with a
 * `suite.list.requested` in the same transaction, and a suite-shard process
 * lists it (`SuiteShardRunner`).
 * @throws AppError 400 for a bad archive, a missing config, unmet
 * dependencies or (listed here) a suite Playwright cannot list; 404 for an
 * unknown project; 501 on a runner that lists on upload and cannot make boxes.
 */
export async function uploadSuite(ctx: ExecutionContext, settings: SuiteSettings, orgId: string, u: SuiteUpload): Promise<{ body: ReturnType<typeof uploadedBody>; listed: boolean }> {
  const projectId = u.project_id?.trim() ?? '';
  const name = u.name?.trim() ?? '';
  if (!isUuid(projectId)) throw asField('project_id', 'is required (the project the suite tests)');
  if (!name || name.length > 200) throw asField('name', 'is required, at most 200 characters');
  const projects = (u.projects ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  if (projects.length > 20 || projects.some((p) => p.length > 200)) throw asField('projects', 'at most 20 project names of at most 200 characters');
  const unpacked = unpackArchive(u.archive, settings.archive);
  const configFile = findConfigFile(unpacked.files);
  const dependencies = dependencyMode(unpacked.files);
  const project = await ctx.testCases.project(orgId, projectId);
  const suiteKey = `${orgId}/${projectId}/${name}`;
  const listing = settings.listOnUpload ? await listTests(ctx.logger, settings, suiteKey, unpacked.files, configFile, projects) : undefined;
  const { suite, version } = await withTransaction(ctx.db, async (trx) => {
    const stored = await insertSuiteVersion(trx, {
      org_id: orgId,
      project_id: project.id,
      project_name: project.name,
      name,
      projects,
      format: unpacked.format,
      archive: u.archive,
      sha256: createHash('sha256').update(u.archive).digest('hex'),
      files: unpacked.files.length,
      config_file: configFile ?? null,
      dependencies,
      fully_parallel: listing?.fullyParallel ?? false,
      tests: listing?.tests ?? [],
      status: listing ? 'ready' : 'listing',
    });
    if (!listing) await enqueueEvents(trx, ctx.schema, [listRequested(orgId, project.id, stored.version.id, 1)]);
    return stored;
  });
  return { body: uploadedBody(suite, version), listed: listing !== undefined };
}

/** The command a suite-shard process takes to list a stored version's tests in a box. */
export function listRequested(orgId: string, projectId: string, versionId: string, attempt: number) {
  return { event: 'suite.list.requested' as const, organization_id: orgId, project_id: projectId, key: versionId, data: { suite_version_id: versionId, attempt } };
}

export function suiteBody(s: SuiteRow) {
  return { id: s.id, project_id: s.project_id, name: s.name, projects: s.projects, latest_version: s.latest_version, created_at: iso(s.created_at), updated_at: iso(s.updated_at) };
}

export function versionBody(v: SuiteVersionInfo, withTests: boolean) {
  return {
    id: v.id,
    suite_id: v.suite_id,
    version: v.version,
    format: v.format,
    size: v.size,
    sha256: v.sha256,
    files: v.files,
    config_file: v.config_file,
    dependencies: v.dependencies,
    playwright_version: PLAYWRIGHT_VERSION,
    fully_parallel: v.fully_parallel,
    status: v.status,
    error: v.error,
    projects: v.projects,
    listed_at: v.listed_at ? iso(v.listed_at) : null,
    total_tests: v.tests.length,
    ...(withTests ? { tests: v.tests.map(testBody) } : {}),
    created_at: iso(v.created_at),
  };
}

const testBody = (t: SuiteTest) => ({ id: t.id, project: t.project, file: t.file, line: t.line, title: t.title_path[t.title_path.length - 1] ?? '', title_path: t.title_path, tags: t.tags });

/**
 * A version a run may use: listed and valid.
 * @throws AppError 409 while it is being listed or when it could not be.
 */
export function assertRunnable(v: SuiteVersionInfo): void {
  if (v.status === 'listing') throw conflict(`Version ${v.version} of this suite is still being listed (its tests are not known yet): run it once GET /api/v1/suites/${v.suite_id}/versions/${v.version} says "ready"`, { status: v.status });
  if (v.status === 'invalid') throw conflict(`Version ${v.version} of this suite could not be listed, so it cannot run: ${v.error ?? 'no reason recorded'}`, { status: v.status });
}

export async function getSuite(ctx: ExecutionContext, orgId: string, id: string): Promise<SuiteRow> {
  const suite = isUuid(id) ? await findSuite(ctx.db, orgId, id) : undefined;
  if (!suite) throw notFound('Suite');
  return suite;
}

/** The suite page: the suite, its latest version with its tests, its last runs, slowest and flaky tests. */
export async function suitePage(ctx: ExecutionContext, orgId: string, id: string) {
  const suite = await getSuite(ctx, orgId, id);
  const latest = await findVersion(ctx.db, suite.id, suite.latest_version);
  const { lastRuns, tests } = await suiteFigures(ctx.db, orgId, suite.id);
  const round = (n: number) => Math.round(n);
  return {
    ...suiteBody(suite),
    latest: latest ? versionBody(latest, true) : null,
    last_runs: lastRuns.slice(0, 10).map((r) => ({ id: r.id, status: r.status, passed_tests: r.passed_tests, failed_tests: r.failed_tests, skipped_tests: r.skipped_tests, total_tests: r.total_tests, shards: r.suite_options?.shards ?? 1, created_at: iso(r.created_at), completed_at: iso(r.completed_at) })),
    slowest_tests: [...tests].sort((a, b) => b.mean_ms - a.mean_ms).slice(0, 10).map((t) => ({ test_id: t.test_case_id, name: t.name, runs: t.runs, mean_ms: round(t.mean_ms), max_ms: t.max_ms })),
    flaky_tests: tests.filter((t) => t.flaky > 0 || (t.failed > 0 && t.failed < t.runs)).sort((a, b) => b.flaky - a.flaky || b.failed - a.failed).slice(0, 10).map((t) => ({ test_id: t.test_case_id, name: t.name, runs: t.runs, flaky: t.flaky, failed: t.failed })),
  };
}

export async function suiteVersions(ctx: ExecutionContext, orgId: string, id: string, limit: number, offset: number) {
  const suite = await getSuite(ctx, orgId, id);
  const page = await listVersions(ctx.db, suite.id, limit, offset);
  return { data: page.rows.map((v) => versionBody(v, false)), pagination: { limit, offset, total: page.total } };
}

export async function suiteVersion(ctx: ExecutionContext, orgId: string, id: string, version: string) {
  const suite = await getSuite(ctx, orgId, id);
  const n = Number(version);
  const v = Number.isInteger(n) && n > 0 && n < 2 ** 31 ? await findVersion(ctx.db, suite.id, n) : undefined;
  if (!v) throw notFound('Suite version');
  return versionBody(v, true);
}
