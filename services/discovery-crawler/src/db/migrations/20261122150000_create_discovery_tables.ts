import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('config', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('running').check(sql`status in ('running','paused','cancelled','completed','failed')`))
    .addColumn('error', 'text')
    .addColumn('current_page', 'text')
    .addColumn('robots_txt', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('estimated_completion', 'timestamptz')
    .addColumn('paused_at', 'timestamptz')
    .addColumn('resumed_at', 'timestamptz')
    .addColumn('cancelled_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .addColumn('patterns_found', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`create index sessions_claimable on sessions (lease_expires_at) where status = 'running'`.execute(db);

  await db.schema
    .createTable('pages')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('depth', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('title', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('content_type', 'text')
    .addColumn('response_time_ms', 'integer')
    .addColumn('links_found', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('forms_found', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('api_calls', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('analysis', 'jsonb')
    .addColumn('discovered_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('crawled_at', 'timestamptz')
    .addUniqueConstraint('pages_session_url', ['session_id', 'url'])
    .execute();
  await sql`create index pages_frontier on pages (session_id, depth, id) where state = 'pending'`.execute(db);

  await db.schema
    .createTable('api_endpoints')
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('response_time_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('calls', 'integer', (c) => c.notNull().defaultTo(1))
    .addPrimaryKeyConstraint('api_endpoints_pk', ['session_id', 'method', 'endpoint'])
    .execute();

  await db.schema
    .createTable('flows')
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('flow_key', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('pages', 'jsonb', (c) => c.notNull())
    .addColumn('steps', 'jsonb', (c) => c.notNull())
    .addColumn('confidence', 'float8', (c) => c.notNull())
    .addColumn('evidence', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('flows_pk', ['session_id', 'flow_id'])
    .addUniqueConstraint('flows_key', ['session_id', 'flow_key'])
    .execute();

  await db.schema
    .createTable('session_events')
    .addColumn('seq', 'bigserial', (c) => c.primaryKey())
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index session_events_by_session on session_events (session_id, seq)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['session_events', 'flows', 'api_endpoints', 'pages', 'sessions']) await db.schema.dropTable(t).execute();
}
