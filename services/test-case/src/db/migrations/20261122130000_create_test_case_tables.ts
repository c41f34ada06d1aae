import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('environments', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index projects_by_org on projects (org_id, created_at, id)`.execute(db);

  await db.schema
    .createTable('test_cases')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active').check(sql`status in ('active', 'archived')`))
    .addColumn('priority', 'text', (c) => c.notNull().defaultTo('medium').check(sql`priority in ('critical', 'high', 'medium', 'low')`))
    .addColumn('steps', 'jsonb', (c) => c.notNull())
    .addColumn('tags', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await sql`create index test_cases_list on test_cases (org_id, project_id, status, created_at, id)`.execute(db);

  await db.schema
    .createTable('test_plans')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index test_plans_by_org on test_plans (org_id, project_id, created_at, id)`.execute(db);

  await db.schema
    .createTable('test_plan_cases')
    .addColumn('plan_id', 'uuid', (c) => c.notNull().references('test_plans.id').onDelete('cascade'))
    .addColumn('test_case_id', 'uuid', (c) => c.notNull().references('test_cases.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('test_plan_cases_pk', ['plan_id', 'test_case_id'])
    .execute();
  await sql`create index test_plan_cases_by_case on test_plan_cases (test_case_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['test_plan_cases', 'test_plans', 'test_cases', 'projects']) await db.schema.dropTable(t).execute();
}
