import { Router } from 'express';
import { isUuid, iso, notFound, orgPrincipal } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { findArtifact, insertUpload } from '../executions/executions.repository.js';
import { artifactUrl } from '../runner/events.js';
import { DEFAULT_ARTIFACT_MAX_BYTES, readFileUpload } from './artifacts.upload.js';

/** Screenshots (PNG), traces and uploaded files, only to the organization that owns them. */
export function artifactRoutes(ctx: ExecutionContext): Router {
  const router = Router();

  // A file for `upload` steps; its id goes in the step's value.
  router.post('/api/v1/artifacts', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const file = await readFileUpload(req, ctx.artifactMaxBytes ?? DEFAULT_ARTIFACT_MAX_BYTES);
    const row = await insertUpload(ctx.db, { org_id: orgId, filename: file.filename, content_type: file.contentType, data: file.data });
    res.status(201).json({
      id: row.id,
      kind: row.kind,
      filename: row.filename,
      content_type: row.content_type,
      size: row.size,
      created_at: iso(row.created_at),
      url: artifactUrl(ctx.publicBaseUrl, row.id),
    });
  });

  router.get('/api/v1/artifacts/:id', async (req, res) => {
    const artifact = isUuid(req.params.id) ? await findArtifact(ctx.db, orgPrincipal(res).org_id, req.params.id) : undefined;
    if (!artifact) throw notFound('Artifact');
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
