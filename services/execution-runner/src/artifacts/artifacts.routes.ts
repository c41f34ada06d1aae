import { Router } from 'express';
import { AppError, isUuid, orgPrincipal } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { findArtifact, HISTORY_DAYS } from './artifacts.repository.js';

const NOT_FOUND = `Artifact not found (screenshots and traces are kept for the plan's history period: ${Object.entries(HISTORY_DAYS)
  .map(([plan, days]) => `${days} days on ${plan[0]!.toUpperCase()}${plan.slice(1)}`)
  .join(', ')})`;

/** Screenshots (PNG) and traces, only to the organization that owns them, until they expire. */
export function artifactRoutes(ctx: ExecutionContext): Router {
  const router = Router();
  router.get('/api/v1/artifacts/:id', async (req, res) => {
    const artifact = isUuid(req.params.id) ? await findArtifact(ctx.db, orgPrincipal(res).org_id, req.params.id) : undefined;
    if (!artifact) throw new AppError(404, 'not_found', NOT_FOUND);
    res.setHeader('cache-control', 'private, max-age=86400, immutable');
    res.type(artifact.content_type).send(artifact.data);
  });
  return router;
}
