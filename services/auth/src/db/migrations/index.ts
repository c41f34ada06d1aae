import type { Migration } from '@assay/db';
import { outboxMigration } from '@assay/bus';
import * as createAuthTables from './20261122120000_create_auth_tables.js';
import * as saas from './20261201120000_saas.js';

/** Every migration of the `auth` schema, in order. */
export const migrations: Record<string, Migration> = {
  '20261122115900_create_outbox': outboxMigration,
  '20261122120000_create_auth_tables': createAuthTables,
  '20261201120000_saas': saas,
};
