import { sql, type Kysely } from 'kysely';

/**
 * Variables of a project (issue 31): for every environment (`environment` ''),
 * or for one named environment, which overrides. A secret's value is stored
 * only encrypted (`ciphertext`, AES-256-GCM bound to its project, environment
 * and name); a plain variable's in `value`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('project_variables')
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret', 'boolean', (c) => c.notNull())
    .addColumn('value', 'text')
    .addColumn('ciphertext', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('project_variables_pk', ['project_id', 'environment', 'name'])
    .addCheckConstraint('project_variables_secret_encrypted', sql`(secret and ciphertext is not null and value is null) or (not secret and value is not null and ciphertext is null)`)
    .execute();
  await sql`create index project_variables_by_org on project_variables (org_id, project_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('project_variables').execute();
}
