import type { Migration } from '@assay/db';
import { outboxMigration, outboxTraceparentMigration } from '@assay/bus';
import * as createAuthTables from './20261122120000_create_auth_tables.js';
import * as saas from './20261201120000_saas.js';
import * as sessions from './20261204100000_sessions.js';

/** Every migration of the `auth` schema, in order. */
export const migrations: Record<string, Migration> = {
  '20261122115900_create_outbox': outboxMigration,
  '20261122120000_create_auth_tables': createAuthTables,
  '20261201120000_saas': saas,
  '20261202100000_outbox_traceparent': outboxTraceparentMigration,
  '20261204100000_sessions': sessions,
};
