import { orgPrincipal, readMultipart, serviceRouter, type ServiceRouter, validationError } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { readArtifact, uploadArtifact } from './artifacts.service.js';

/** Screenshots (PNG), traces and uploaded files, only to the organization that owns them; screenshots and traces until they expire. */
export function artifactRoutes(ctx: ExecutionContext): ServiceRouter<'execution-runner'> {
  const router = serviceRouter('execution-runner');

  router.post('/api/v1/artifacts', async (req, res) => {
    const { file } = await readMultipart(req, { maxBytes: ctx.artifacts.maxBytes, usage: 'one field "file" (curl -F file=@photo.png)' });
    if (!file) throw validationError([{ field: 'file', message: 'is required: send the file as the multipart field "file"' }]);
    res.status(201).json(await uploadArtifact(ctx, orgPrincipal(res).org_id, file));
  });

  router.get('/api/v1/artifacts/:id', async (req, res) => {
    const artifact = await readArtifact(ctx, orgPrincipal(res).org_id, req.params.id);
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
