import type { SessionWarning } from '../../db/database.js';
import { confidenceFactor } from '../warnings.js';
import { detectAuthentication } from './authentication.js';
import { detectCheckout } from './checkout.js';
import { Detection, round, type AnalyzedPage, type DetectedFlow, type FlowDetector, type FlowType } from './context.js';
import { detectCrud } from './crud.js';
import { detectFormSubmission } from './form-submission.js';
import { detectNavigation } from './navigation.js';
import { detectSearch } from './search.js';

export type { AnalyzedPage, DetectedFlow, FlowType } from './context.js';
export { sampleValue } from './context.js';

/**
 * Every flow type and the detector that finds it (one file each, like the
 * step kinds of @assay/steps): typed against FlowType, so a type added there
 * does not compile until it has its detector here. Detectors run in this
 * order: a form one of them makes part of a flow (a login, a search, a
 * checkout, a record editor) is not also a plain form submission.
 */
export const FLOW_DETECTORS: { readonly [T in FlowType]: FlowDetector } = {
  authentication: detectAuthentication,
  search: detectSearch,
  checkout: detectCheckout,
  crud: detectCrud,
  navigation: detectNavigation,
  form_submission: detectFormSubmission,
};

/**
 * Flows from what pages afford (roles, labels, landmarks, forms, ARIA state)
 * and what the network did, never from URL words or an app's class names.
 */
export function detectFlows(pages: AnalyzedPage[]): DetectedFlow[] {
  const d = new Detection(pages);
  for (const detect of Object.values(FLOW_DETECTORS)) detect(d);
  return d.flows;
}

/**
 * The summary's discovery_confidence: the mean evidence of the flows (0
 * without any), lowered once for each kind of warning the session carries
 * (a crawl that saw only an empty shell is not confident, whatever it found).
 */
export function discoveryConfidence(flows: Array<{ confidence: number }>, warnings: SessionWarning[] = []): number {
  if (!flows.length) return 0;
  return round((flows.reduce((s, f) => s + f.confidence, 0) / flows.length) * confidenceFactor(warnings));
}
