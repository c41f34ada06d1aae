import { FAILURE_CATEGORIES, type FailureCategory, type TriageType } from '@assay/contracts/catalogues';

/** The failure categories (the contracts' closed set; see the README for the evidence behind each). */
export const CATEGORIES = FAILURE_CATEGORIES;
export type Category = FailureCategory;

/** What each category usually is, for teams that triage the ReportPortal way. */
export const TRIAGE: Record<Category, TriageType> = {
  selector_changed: 'automation_bug',
  element_missing: 'to_investigate',
  element_not_interactable: 'product_bug',
  assertion_mismatch: 'product_bug',
  page_error: 'product_bug',
  network_error: 'system_issue',
  script_error: 'product_bug',
  timeout: 'system_issue',
  flaky: 'automation_bug',
  // A changed look is a bug or an intended redesign: a person decides (and accepts the new baseline).
  visual_change: 'to_investigate',
};

/**
 * An error message with what changes between occurrences of the same problem
 * taken out (quoted values, numbers, hosts and ports), for grouping into issues.
 */
export function normaliseError(message: string | null | undefined): string {
  return (message ?? '')
    .replace(/https?:\/\/[^/\s"]+/g, '<origin>')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>')
    .replace(/\d+(\.\d+)?/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 500);
}
