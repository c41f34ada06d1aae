import type { Migration } from '@assay/db';
import { outboxMigration, outboxTraceparentMigration } from '@assay/bus';
import * as createTestCaseTables from './20261122130000_create_test_case_tables.js';
import * as projectVariables from './20261204130000_project_variables.js';

/** Every migration of the `testcase` schema, in order. */
export const migrations: Record<string, Migration> = {
  '20261122125900_create_outbox': outboxMigration,
  '20261122130000_create_test_case_tables': createTestCaseTables,
  '20261202100000_outbox_traceparent': outboxTraceparentMigration,
  '20261204130000_project_variables': projectVariables,
};
