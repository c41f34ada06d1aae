import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analyses')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('waiting'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('not_before', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await sql`create index analyses_due on analyses (not_before) where status in ('pending', 'running')`.execute(db);

  await db.schema
    .createTable('analysis_items')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('execution_id', 'uuid', (c) => c.notNull().references('analyses.id').onDelete('cascade'))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('test_case_id', 'uuid', (c) => c.notNull())
    .addColumn('test_name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('step_id', 'text')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('triage_type', 'text', (c) => c.notNull())
    .addColumn('confidence', 'real', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('evidence', 'jsonb', (c) => c.notNull())
    .addColumn('fix_suggestions', 'jsonb', (c) => c.notNull())
    .addColumn('suggestion', 'jsonb')
    .addColumn('suggestion_state', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('issue_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('applied_at', 'timestamptz')
    .addColumn('rejected_at', 'timestamptz')
    .addUniqueConstraint('analysis_items_one_per_test', ['execution_id', 'test_case_id'])
    .execute();

  await db.schema
    .createTable('test_runs')
    .addColumn('execution_id', 'uuid', (c) => c.notNull())
    .addColumn('test_case_id', 'uuid', (c) => c.notNull())
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('test_plan_id', 'uuid', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('test_case_version', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('test_runs_pk', ['execution_id', 'test_case_id'])
    .execute();
  await sql`create index test_runs_history on test_runs (org_id, test_case_id, test_plan_id, environment, test_case_version, completed_at desc)`.execute(db);

  await db.schema
    .createTable('known_elements')
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('test_case_id', 'uuid', (c) => c.notNull())
    .addColumn('step_id', 'text', (c) => c.notNull())
    .addColumn('selector', 'text', (c) => c.notNull())
    .addColumn('page_url', 'text')
    .addColumn('fingerprint', 'jsonb', (c) => c.notNull())
    .addColumn('execution_id', 'uuid', (c) => c.notNull())
    .addColumn('seen_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('known_elements_pk', ['org_id', 'test_case_id', 'step_id'])
    .execute();
  await sql`create index known_elements_by_selector on known_elements (org_id, project_id, selector, seen_at desc)`.execute(db);

  await db.schema
    .createTable('rejections')
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('test_case_id', 'uuid', (c) => c.notNull())
    .addColumn('step_id', 'text', (c) => c.notNull())
    .addColumn('candidate_signature', 'text', (c) => c.notNull())
    .addColumn('selector', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('item_id', 'uuid', (c) => c.notNull())
    .addColumn('rejected_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('rejections_pk', ['org_id', 'test_case_id', 'step_id', 'candidate_signature'])
    .execute();

  await db.schema
    .createTable('issues')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('test_case_id', 'uuid', (c) => c.notNull())
    .addColumn('test_name', 'text', (c) => c.notNull())
    .addColumn('step_id', 'text')
    .addColumn('step_index', 'integer')
    .addColumn('step_description', 'text')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('triage_type', 'text', (c) => c.notNull())
    .addColumn('normalized_error', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('occurrences', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reopened_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_seen', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen', 'timestamptz', (c) => c.notNull())
    .addColumn('last_execution_id', 'uuid', (c) => c.notNull())
    .addColumn('latest_item_id', 'uuid', (c) => c.notNull())
    .addColumn('flakiness', 'jsonb')
    .addColumn('resolved_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('issues_signature', ['org_id', 'signature'])
    .execute();
  await sql`create index issues_by_project on issues (org_id, project_id, status, last_seen desc)`.execute(db);

  await db.schema
    .createTable('issue_occurrences')
    .addColumn('issue_id', 'uuid', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('execution_id', 'uuid', (c) => c.notNull())
    .addColumn('item_id', 'uuid', (c) => c.notNull())
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('confidence', 'real', (c) => c.notNull())
    .addPrimaryKeyConstraint('issue_occurrences_pk', ['issue_id', 'execution_id'])
    .execute();

  await db.schema
    .createTable('enrichments')
    .addColumn('session_id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('not_before', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('result', 'jsonb')
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['enrichments', 'issue_occurrences', 'issues', 'rejections', 'known_elements', 'test_runs', 'analysis_items', 'analyses']) await db.schema.dropTable(t).execute();
}
