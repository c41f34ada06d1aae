import { orgPrincipal, parsePagination, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { changeSchedule, createSchedule, getSchedule, listPlanSchedules, removeSchedule, toScheduleBody } from './schedules.service.js';

/** Schedules of a test plan: each occurrence starts an execution (see scheduler.ts). */
export function scheduleRoutes(ctx: ExecutionContext): ServiceRouter<'execution-runner'> {
  const router = serviceRouter('execution-runner');
  const base = '/api/v1/test-plans/:planId/schedules';

  router.post(base, validateBody('ScheduleCreateRequest'), async (req, res) => {
    const body = await createSchedule(ctx, orgPrincipal(res).org_id, req.params.planId as string, req.body);
    res.status(201).location(`/api/v1/test-plans/${body.test_plan_id}/schedules/${body.id}`).json(body);
  });

  router.get(base, async (req, res) => {
    const { limit, offset } = parsePagination(req.query as Record<string, unknown>, { defaultLimit: 50, maxLimit: 100 });
    res.json(await listPlanSchedules(ctx, orgPrincipal(res).org_id, req.params.planId as string, limit, offset));
  });

  router.get(`${base}/:id`, async (req, res) => {
    res.json(toScheduleBody(await getSchedule(ctx, orgPrincipal(res).org_id, req.params.planId as string, req.params.id as string)));
  });

  router.patch(`${base}/:id`, validateBody('ScheduleUpdateRequest'), async (req, res) => {
    res.json(await changeSchedule(ctx, orgPrincipal(res).org_id, req.params.planId as string, req.params.id as string, req.body));
  });

  router.delete(`${base}/:id`, async (req, res) => {
    res.json(await removeSchedule(ctx, orgPrincipal(res).org_id, req.params.planId as string, req.params.id as string));
  });

  return router;
}
