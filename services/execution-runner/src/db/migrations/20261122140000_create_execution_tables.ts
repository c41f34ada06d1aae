import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('executions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('project_name', 'text', (c) => c.notNull())
    .addColumn('test_plan_id', 'uuid', (c) => c.notNull())
    .addColumn('test_plan_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued').check(sql`status in ('queued','pending','running','completed','failed','cancelled')`))
    .addColumn('environment', 'text')
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('variables', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('timeout_seconds', 'integer', (c) => c.notNull())
    .addColumn('total_tests', 'integer', (c) => c.notNull())
    .addColumn('passed_tests', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_tests', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped_tests', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .addColumn('cancelled_at', 'timestamptz')
    .addColumn('cancellation_reason', 'text')
    .execute();
  await sql`create index executions_list on executions (org_id, project_id, created_at desc, id)`.execute(db);
  await sql`create index executions_active on executions (status, lease_expires_at) where status in ('queued','pending','running')`.execute(db);

  await db.schema
    .createTable('test_results')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('execution_id', 'uuid', (c) => c.notNull().references('executions.id').onDelete('cascade'))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('test_case_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('steps_snapshot', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('error_step', 'integer')
    .addColumn('screenshot_artifact_id', 'uuid')
    .addColumn('steps', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('diagnostics', 'jsonb')
    .addColumn('started_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .addUniqueConstraint('test_results_position', ['execution_id', 'position'])
    .execute();

  await db.schema
    .createTable('artifacts')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('execution_id', 'uuid', (c) => c.notNull().references('executions.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('data', 'bytea', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('execution_events')
    .addColumn('seq', 'bigserial', (c) => c.primaryKey())
    .addColumn('execution_id', 'uuid', (c) => c.notNull().references('executions.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index execution_events_by_execution on execution_events (execution_id, seq)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['execution_events', 'artifacts', 'test_results', 'executions']) await db.schema.dropTable(t).execute();
}
