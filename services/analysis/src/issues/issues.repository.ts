import { sql, type Kysely } from 'kysely';
import { selectPage } from '@assay/db';
import type { AnalysisDatabase, IssueRow, IssueStatus } from '../db/database.js';

type Db = Kysely<AnalysisDatabase>;

export interface IssueOccurrence {
  org_id: string;
  project_id: string;
  signature: string;
  test_case_id: string;
  test_name: string;
  step_id: string | null;
  step_index: number | null;
  step_description: string | null;
  category: string;
  triage_type: string;
  normalized_error: string;
  title: string;
  execution_id: string;
  item_id: string;
  occurred_at: Date;
  error: string | null;
  confidence: number;
  flakiness: string | null;
}

/**
 * Adds an occurrence to the issue of its signature (creating the issue on the
 * first one). A new occurrence of a resolved issue reopens it; acknowledged
 * and ignored issues keep their status. Replaying the same execution adds nothing.
 */
export async function recordOccurrence(db: Db, o: IssueOccurrence): Promise<IssueRow> {
  const existing = await db.selectFrom('issues').selectAll().where('org_id', '=', o.org_id).where('signature', '=', o.signature).forUpdate().executeTakeFirst();
  let issue: IssueRow;
  if (!existing) {
    issue = await db
      .insertInto('issues')
      .values({
        org_id: o.org_id,
        project_id: o.project_id,
        signature: o.signature,
        test_case_id: o.test_case_id,
        test_name: o.test_name,
        step_id: o.step_id,
        step_index: o.step_index,
        step_description: o.step_description,
        category: o.category,
        triage_type: o.triage_type,
        normalized_error: o.normalized_error,
        title: o.title,
        first_seen: o.occurred_at,
        last_seen: o.occurred_at,
        last_execution_id: o.execution_id,
        latest_item_id: o.item_id,
        flakiness: o.flakiness,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } else issue = existing;
  const added = await db
    .insertInto('issue_occurrences')
    .values({ issue_id: issue.id, execution_id: o.execution_id, item_id: o.item_id, org_id: o.org_id, occurred_at: o.occurred_at, category: o.category, error: o.error, confidence: o.confidence })
    .onConflict((oc) => oc.columns(['issue_id', 'execution_id']).doUpdateSet({ item_id: o.item_id, confidence: o.confidence }))
    .returning(sql<boolean>`xmax = 0`.as('inserted'))
    .executeTakeFirstOrThrow();
  const newer = o.occurred_at.getTime() >= issue.last_seen.getTime();
  const reopen = added.inserted && issue.status === 'resolved';
  return db
    .updateTable('issues')
    .set({
      ...(added.inserted ? { occurrences: sql`occurrences + 1` } : {}),
      ...(newer ? { last_seen: o.occurred_at, last_execution_id: o.execution_id, latest_item_id: o.item_id, title: o.title, flakiness: o.flakiness, test_name: o.test_name } : {}),
      ...(o.occurred_at.getTime() < issue.first_seen.getTime() ? { first_seen: o.occurred_at } : {}),
      ...(reopen ? { status: 'open', resolved_at: null, reopened_count: sql`reopened_count + 1` } : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', issue.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface IssueFilter {
  projectId?: string;
  status?: IssueStatus;
  category?: string;
  testCaseId?: string;
  limit: number;
  offset: number;
}

export async function listIssues(db: Db, orgId: string, f: IssueFilter): Promise<{ rows: IssueRow[]; total: number }> {
  let q = db.selectFrom('issues').where('org_id', '=', orgId);
  if (f.projectId) q = q.where('project_id', '=', f.projectId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.category) q = q.where('category', '=', f.category);
  if (f.testCaseId) q = q.where('test_case_id', '=', f.testCaseId);
  return selectPage(q.selectAll().orderBy('last_seen', 'desc').orderBy('id').limit(f.limit).offset(f.offset), q);
}

export async function findIssue(db: Db, orgId: string, id: string, lock = false): Promise<IssueRow | undefined> {
  let q = db.selectFrom('issues').selectAll().where('org_id', '=', orgId).where('id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function issueOccurrences(db: Db, issueId: string, limit: number) {
  return db.selectFrom('issue_occurrences').select(['execution_id', 'occurred_at', 'category', 'error', 'confidence']).where('issue_id', '=', issueId).orderBy('occurred_at', 'desc').limit(limit).execute();
}

export async function setIssueStatus(db: Db, id: string, status: IssueStatus): Promise<IssueRow> {
  return db
    .updateTable('issues')
    .set({ status, resolved_at: status === 'resolved' ? sql`now()` : null, updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
