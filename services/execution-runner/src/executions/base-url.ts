import { validationError } from '@assay/http';
import type { PlanSnapshot } from '../clients/test-case.client.js';

/**
 * The base URL a run uses: the project's, or its `environment`'s.
 * @throws AppError 400 for an environment the project does not define.
 */
export function baseUrlFor(project: PlanSnapshot['project'], environment: string | undefined): string {
  if (environment === undefined) return project.base_url;
  const url = project.environments[environment];
  if (!url) {
    const known = Object.keys(project.environments);
    throw validationError([{ field: 'environment', message: known.length ? `must be one of ${known.join(', ')}` : 'the project defines no environments' }]);
  }
  return url;
}
