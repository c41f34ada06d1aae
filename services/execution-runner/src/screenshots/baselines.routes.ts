import { orgPrincipal, parsePagination, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { approveScreenshot, getScreenshotBaseline, listScreenshotBaselines, removeScreenshotBaseline } from './baselines.service.js';

/** `assert_screenshot` baselines: list per case (and step), accept a failed run's capture, delete. */
export function baselineRoutes(ctx: ExecutionContext): ServiceRouter<'execution-runner'> {
  const router = serviceRouter('execution-runner');
  const base = '/api/v1/screenshot-baselines';

  router.get(base, async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 50, maxLimit: 100 });
    res.json(await listScreenshotBaselines(ctx, orgPrincipal(res).org_id, query, limit, offset));
  });

  router.post(base, validateBody('ScreenshotBaselineApproveRequest'), async (req, res) => {
    const body = await approveScreenshot(ctx, orgPrincipal(res).org_id, req.body);
    res.status(201).location(`${base}/${body.id}`).json(body);
  });

  router.get(`${base}/:id`, async (req, res) => {
    res.json(await getScreenshotBaseline(ctx, orgPrincipal(res).org_id, req.params.id as string));
  });

  router.delete(`${base}/:id`, async (req, res) => {
    res.json(await removeScreenshotBaseline(ctx, orgPrincipal(res).org_id, req.params.id as string));
  });

  return router;
}
