import { sql, type Kysely } from 'kysely';

// Scheduled runs of test plans: the schedules, and one row per occurrence handled (its exactly-once key).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('schedules')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('test_plan_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('cron', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('environment', 'text')
    .addColumn('variables', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('next_run_at', 'timestamptz')
    .addColumn('last_run_at', 'timestamptz')
    .addColumn('last_execution_id', 'uuid')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index schedules_due on schedules (next_run_at) where enabled`.execute(db);
  await sql`create index schedules_by_plan on schedules (org_id, test_plan_id, created_at)`.execute(db);
  await db.schema
    .createTable('schedule_runs')
    .addColumn('schedule_id', 'uuid', (c) => c.notNull().references('schedules.id').onDelete('cascade'))
    .addColumn('scheduled_for', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('started', 'skipped')`))
    .addColumn('execution_id', 'uuid')
    .addColumn('reason', 'text')
    .addColumn('missed_occurrences', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('schedule_runs_pk', ['schedule_id', 'scheduled_for'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('schedule_runs').execute();
  await db.schema.dropTable('schedules').execute();
}
