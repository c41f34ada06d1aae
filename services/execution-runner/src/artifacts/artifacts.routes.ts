import { Router } from 'express';
import { AppError, iso, isUuid, orgPrincipal } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { artifactUrl } from '../execution-events.js';
import { ArtifactRefusedError, artifactCreatedAt, findArtifact, HISTORY_DAYS, storeArtifact } from './artifacts.repository.js';
import { readFileUpload } from './artifacts.upload.js';

const NOT_FOUND = `Artifact not found (screenshots and traces are kept for the plan's history period: ${Object.entries(HISTORY_DAYS)
  .map(([plan, days]) => `${days} days on ${plan[0]!.toUpperCase()}${plan.slice(1)}`)
  .join(', ')})`;

/** Screenshots (PNG), traces and uploaded files, only to the organization that owns them; screenshots and traces until they expire. */
export function artifactRoutes(ctx: ExecutionContext): Router {
  const router = Router();

  // A file for `upload` steps; its id goes in the step's value. It counts against the organization's storage and is kept until deleted.
  router.post('/api/v1/artifacts', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const file = await readFileUpload(req, ctx.artifacts.maxBytes);
    const id = await storeArtifact(ctx.db, ctx.artifacts, { org_id: orgId, execution_id: null, kind: 'upload', filename: file.filename, content_type: file.contentType, data: file.data, keep_days: null }).catch((err: unknown) => {
      if (!(err instanceof ArtifactRefusedError)) throw err;
      throw err.cap === 'size'
        ? new AppError('payload_too_large', `The file is too large: ${err.message}`, { limit_bytes: ctx.artifacts.maxBytes })
        : new AppError('insufficient_permissions', `Quota exceeded: ${err.message}`, { quota: 'artifact_storage', limit_bytes: ctx.artifacts.orgQuotaBytes });
    });
    const created_at = await artifactCreatedAt(ctx.db, id);
    res.status(201).json({
      id,
      kind: 'upload',
      filename: file.filename,
      content_type: file.contentType,
      size: file.data.length,
      created_at: iso(created_at),
      url: artifactUrl(ctx.publicBaseUrl, id),
    });
  });

  router.get('/api/v1/artifacts/:id', async (req, res) => {
    const artifact = isUuid(req.params.id) ? await findArtifact(ctx.db, orgPrincipal(res).org_id, req.params.id) : undefined;
    if (!artifact) throw new AppError('not_found', NOT_FOUND);
    res.setHeader('cache-control', 'private, max-age=86400, immutable');
    if (artifact.kind === 'upload') {
      // A customer's file: a download, never rendered as a page of this origin.
      res.setHeader('x-content-type-options', 'nosniff');
      res.attachment(artifact.filename ?? 'upload.bin');
    }
    res.type(artifact.content_type).send(artifact.data);
  });
  return router;
}
