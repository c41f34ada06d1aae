import { sql, type Kysely } from 'kysely';

// Issue 42: Playwright suites uploaded as archives (immutable versions), run as executions of kind `suite`,
// split into shards that any runner replica takes, tests handed out from a queue ordered by past durations.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('suites')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('project_name', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('projects', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('latest_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('suites_name', ['org_id', 'project_id', 'name'])
    .execute();

  await db.schema
    .createTable('suite_versions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('suite_id', 'uuid', (c) => c.notNull().references('suites.id').onDelete('cascade'))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull().check(sql`format in ('tar.gz', 'zip')`))
    .addColumn('archive', 'bytea', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('files', 'integer', (c) => c.notNull())
    .addColumn('config_file', 'text')
    .addColumn('dependencies', 'text', (c) => c.notNull())
    .addColumn('fully_parallel', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('tests', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('suite_versions_number', ['suite_id', 'version'])
    .execute();

  await sql`alter table executions drop constraint if exists executions_kind_check`.execute(db);
  await sql`alter table executions add constraint executions_kind_check check (kind in ('plan', 'run', 'suite'))`.execute(db);
  await db.schema
    .alterTable('executions')
    .addColumn('suite_version_id', 'uuid')
    .addColumn('suite_options', 'jsonb')
    .execute();
  // A Playwright test's own facts in its result: where it lives, its attempts (retries), flaky, output, attachments.
  await db.schema.alterTable('test_results').addColumn('suite_test', 'jsonb').execute();

  await db.schema
    .createTable('suite_shards')
    .addColumn('execution_id', 'uuid', (c) => c.notNull().references('executions.id').onDelete('cascade'))
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued').check(sql`status in ('queued', 'running', 'done', 'failed')`))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('started_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .addPrimaryKeyConstraint('suite_shards_pk', ['execution_id', 'shard'])
    .execute();

  // The queue: one unit per file (or per test when the config runs files fully parallel), longest expected first.
  await db.schema
    .createTable('suite_units')
    .addColumn('execution_id', 'uuid', (c) => c.notNull().references('executions.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('expected_ms', 'integer', (c) => c.notNull())
    .addColumn('lines', 'jsonb', (c) => c.notNull())
    .addColumn('result_ids', 'jsonb', (c) => c.notNull())
    .addColumn('shard', 'integer')
    .addColumn('taken_at', 'timestamptz')
    .addPrimaryKeyConstraint('suite_units_pk', ['execution_id', 'position'])
    .execute();
  await sql`create index suite_units_free on suite_units (execution_id, position) where shard is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('suite_units').execute();
  await db.schema.dropTable('suite_shards').execute();
  await db.schema.alterTable('test_results').dropColumn('suite_test').execute();
  await db.schema.alterTable('executions').dropColumn('suite_version_id').dropColumn('suite_options').execute();
  await sql`alter table executions drop constraint if exists executions_kind_check`.execute(db);
  await sql`alter table executions add constraint executions_kind_check check (kind in ('plan', 'run'))`.execute(db);
  await db.schema.dropTable('suite_versions').execute();
  await db.schema.dropTable('suites').execute();
}
