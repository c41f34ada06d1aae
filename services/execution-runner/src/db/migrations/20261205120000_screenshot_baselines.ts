import { sql, type Kysely } from 'kysely';

// Issue 27: `assert_screenshot` baselines, one per test case, step, browser and viewport. The PNG is an
// artifact of kind `baseline` (no execution, never expires), so it counts in the organization's artifact quota.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('screenshot_baselines')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('test_case_id', 'text', (c) => c.notNull())
    .addColumn('step_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('browser', 'text', (c) => c.notNull())
    .addColumn('viewport', 'text', (c) => c.notNull())
    .addColumn('artifact_id', 'uuid', (c) => c.notNull().references('artifacts.id'))
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull().check(sql`origin in ('first_run', 'approved')`))
    .addColumn('source_execution_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('screenshot_baselines_key', ['org_id', 'test_case_id', 'step_id', 'browser', 'viewport'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('screenshot_baselines').execute();
  await sql`
    with gone as (delete from artifacts where kind = 'baseline' returning org_id, size),
    per_org as (select org_id, sum(size) as bytes from gone group by org_id)
    update artifact_usage u set bytes = greatest(0, u.bytes - p.bytes) from per_org p where u.org_id = p.org_id`.execute(db);
}
