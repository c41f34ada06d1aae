import { Router } from 'express';
import { isUuid, notFound, orgPrincipal } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { findArtifact } from '../executions/executions.repository.js';


/** Screenshots (PNG) and traces, only to the organization that owns them. */
export function artifactRoutes(ctx: ExecutionContext): Router {
  const router = Router();
  router.get('/api/v1/artifacts/:id', async (req, res) => {
    const artifact = isUuid(req.params.id) ? await findArtifact(ctx.db, orgPrincipal(res).org_id, req.params.id) : undefined;
    if (!artifact) throw notFound('Artifact');
    res.setHeader('cache-control', 'private, max-age=86400, immutable');
    res.type(artifact.content_type).send(artifact.data);
  });
  return router;
}
