import type { Response } from 'express';
import { orgPrincipal, serviceRouter, type ServiceRouter, validationError } from '@assay/http';
import { specFilename, toPlaywrightSpec, type ExportCase } from '@assay/steps/playwright-export';
import type { TestCaseContext } from '../context.js';
import type { ProjectRow, TestCaseRow } from '../db/database.js';
import { getProject } from '../projects/projects.service.js';
import { queryString } from '../shared.js';
import { findActiveTestCases, getTestCase } from '../test-cases/test-cases.service.js';
import { getTestPlan } from '../test-plans/test-plans.service.js';

const FORMATS = ['playwright', 'json'] as const;
type Format = (typeof FORMATS)[number];

function formatOf(query: Record<string, unknown>): Format {
  const format = queryString(query, 'format', 32) ?? 'playwright';
  if (!(FORMATS as readonly string[]).includes(format)) throw validationError([{ field: 'format', message: `must be one of ${FORMATS.join(', ')}` }]);
  return format as Format;
}

/** The project's base URL, or that of the environment asked for. */
function baseUrlOf(project: ProjectRow, query: Record<string, unknown>): string {
  const environment = queryString(query, 'environment', 32);
  if (environment === undefined) return project.base_url;
  const environments = project.environments as Record<string, string>;
  if (!Object.hasOwn(environments, environment)) {
    const known = Object.keys(environments);
    throw validationError([{ field: 'environment', message: known.length ? `must be one of ${known.join(', ')}` : 'the project has no environments' }]);
  }
  return environments[environment]!;
}

const toExportCase = (row: TestCaseRow): ExportCase => ({ name: row.name, description: row.description, tags: row.tags as string[], steps: row.steps as ExportCase['steps'] });

/** The import JSON format (services/test-case/docs/import-format.md): the file re-imports as is. */
const toImportJson = (cases: ExportCase[]) =>
  `${JSON.stringify(
    cases.map((c) => ({
      name: c.name,
      ...(c.description ? { description: c.description } : {}),
      ...(c.tags?.length ? { tags: c.tags } : {}),
      steps: c.steps.map(({ step_id: _id, ...step }) => step),
    })),
    null,
    2,
  )}\n`;

function send(res: Response, format: Format, title: string, body: () => string): void {
  const filename = specFilename(title, format === 'json' ? '.json' : '.spec.ts');
  res.setHeader('content-disposition', `attachment; filename="${filename}"`);
  res.setHeader('x-content-type-options', 'nosniff');
  res.type(format === 'json' ? 'application/json' : 'text/plain').send(body());
}

/** `GET .../export`: a test case or a plan as a Playwright Test file, or as import JSON. */
export function exportRoutes(ctx: TestCaseContext): ServiceRouter<'test-case'> {
  const router = serviceRouter('test-case');

  router.get('/api/v1/test-cases/:id/export', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const format = formatOf(query);
    const row = await getTestCase(ctx.db, orgId, req.params.id);
    const project = await getProject(ctx.db, orgId, row.project_id);
    const baseUrl = baseUrlOf(project, query);
    const cases = [toExportCase(row)];
    send(res, format, row.name, () =>
      format === 'json'
        ? toImportJson(cases)
        : toPlaywrightSpec({ title: row.name, baseUrl, source: `test case ${JSON.stringify(row.name)}`, projectName: project.name, cases, describe: false }),
    );
  });

  // A plan exports its active cases in run order, as the runner runs them (archived ones are skipped).
  router.get('/api/v1/test-plans/:id/export', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const format = formatOf(query);
    const plan = await getTestPlan(ctx.db, orgId, req.params.id);
    const project = await getProject(ctx.db, orgId, plan.project_id);
    const baseUrl = baseUrlOf(project, query);
    const cases = (await findActiveTestCases(ctx.db, orgId, plan.test_case_ids)).map(toExportCase);
    send(res, format, plan.name, () =>
      format === 'json'
        ? toImportJson(cases)
        : toPlaywrightSpec({ title: plan.name, baseUrl, source: `test plan ${JSON.stringify(plan.name)}`, projectName: project.name, cases, describe: true }),
    );
  });

  return router;
}
