import type { Kysely } from 'kysely';
import { withTransaction } from '@assay/db';
import { isUuid, notFound } from '@assay/http';
import { findItem } from '../analysis/analysis.repository.js';
import type { AnalysisContext } from '../context.js';
import type { AnalysisDatabase, IssueRow, IssueStatus } from '../db/database.js';
import { findIssue, issueOccurrences, listIssues, setIssueStatus, type IssueFilter } from './issues.repository.js';

type Db = Kysely<AnalysisDatabase>;

/**
 * A page of the organization's issues. When a named project has none, whether
 * the project exists at all is asked of the test-case service.
 * @throws AppError 404 for a project the organization does not have.
 */
export async function listIssuePage(ctx: AnalysisContext, orgId: string, f: IssueFilter): Promise<{ rows: IssueRow[]; total: number }> {
  const page = await listIssues(ctx.db, orgId, f);
  // No issues of a named project: say whether the project exists at all.
  if (page.total === 0 && f.projectId) await ctx.testCases.assertProject(orgId, f.projectId);
  return page;
}

/**
 * One issue with its last 100 occurrences and the analysis of its latest run.
 * @throws AppError 404 for an unknown issue.
 */
export async function getIssueDetail(db: Db, orgId: string, id: string) {
  const row = isUuid(id) ? await findIssue(db, orgId, id) : undefined;
  if (!row) throw notFound('Issue');
  const [occurrences, latest] = await Promise.all([issueOccurrences(db, row.id, 100), findItem(db, orgId, row.last_execution_id, row.test_case_id)]);
  return { row, occurrences, latest };
}

/**
 * Sets the triage status; the same status again changes nothing.
 * @throws AppError 404 for an unknown issue.
 */
export function changeIssueStatus(db: Db, orgId: string, id: unknown, status: IssueStatus): Promise<IssueRow> {
  return withTransaction(db, async (trx) => {
    const current = isUuid(id) ? await findIssue(trx, orgId, id, true) : undefined;
    if (!current) throw notFound('Issue');
    return current.status === status ? current : setIssueStatus(trx, current.id, status);
  });
}
