import { AppError, iso, isUuid } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { artifactUrl } from '../execution-events.js';
import { ArtifactRefusedError, artifactCreatedAt, findArtifact, HISTORY_DAYS, storeArtifact } from './artifacts.repository.js';

const NOT_FOUND = `Artifact not found (screenshots and traces are kept for the plan's history period: ${Object.entries(HISTORY_DAYS)
  .map(([plan, days]) => `${days} days on ${plan[0]!.toUpperCase()}${plan.slice(1)}`)
  .join(', ')})`;

/**
 * Stores a file for `upload` steps (its id goes in the step's value); it counts
 * against the organization's storage and is kept until deleted. Answers the
 * created artifact's description.
 * @throws AppError payload_too_large past the per-file cap, insufficient_permissions past the organization's quota.
 */
export async function uploadArtifact(ctx: ExecutionContext, orgId: string, file: { filename: string; contentType: string; data: Buffer }) {
  const id = await storeArtifact(ctx.db, ctx.artifacts, { org_id: orgId, execution_id: null, kind: 'upload', filename: file.filename, content_type: file.contentType, data: file.data, keep_days: null }).catch((err: unknown) => {
    if (!(err instanceof ArtifactRefusedError)) throw err;
    throw err.cap === 'size'
      ? new AppError('payload_too_large', `The file is too large: ${err.message}`, { limit_bytes: ctx.artifacts.maxBytes })
      : new AppError('insufficient_permissions', `Quota exceeded: ${err.message}`, { quota: 'artifact_storage', limit_bytes: ctx.artifacts.orgQuotaBytes });
  });
  const createdAt = await artifactCreatedAt(ctx.db, id);
  return {
    id,
    kind: 'upload' as const,
    filename: file.filename,
    content_type: file.contentType,
    size: file.data.length,
    created_at: iso(createdAt),
    url: artifactUrl(ctx.publicBaseUrl, id),
  };
}

/**
 * An artifact of the organization (a screenshot, trace or uploaded file).
 * @throws AppError not_found for another organization's, an expired one, or an id that is not a UUID.
 */
export async function readArtifact(ctx: ExecutionContext, orgId: string, id: string) {
  const artifact = isUuid(id) ? await findArtifact(ctx.db, orgId, id) : undefined;
  if (!artifact) throw new AppError('not_found', NOT_FOUND);
  return artifact;
}
