/**
 * The failure analysis's closed sets, which clients switch on: the failure
 * categories (the analysis service's README gives the evidence behind each),
 * ReportPortal's defect types for triage, and an issue's triage states.
 */
export const FAILURE_CATEGORIES = [
  'selector_changed',
  'element_missing',
  'element_not_interactable',
  'assertion_mismatch',
  'page_error',
  'network_error',
  'script_error',
  'timeout',
  'flaky',
  'visual_change',
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

export const TRIAGE_TYPES = ['product_bug', 'automation_bug', 'system_issue', 'no_defect', 'to_investigate'] as const;
export type TriageType = (typeof TRIAGE_TYPES)[number];

export const ISSUE_STATUSES = ['open', 'acknowledged', 'resolved', 'ignored'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];
