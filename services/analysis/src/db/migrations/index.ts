import type { Migration } from '@assay/db';
import { outboxMigration, outboxTraceparentMigration } from '@assay/bus';
import * as createAnalysisTables from './20261123100000_create_analysis_tables.js';
import * as createReports from './20261202130000_create_reports.js';
import * as reportSchedules from './20261203100000_report_schedules.js';
import * as plainWords from './20261204140000_plain_words.js';

/** Every migration of the `analysis` schema, in order. */
export const migrations: Record<string, Migration> = {
  '20261123095900_create_outbox': outboxMigration,
  '20261123100000_create_analysis_tables': createAnalysisTables,
  '20261202100000_outbox_traceparent': outboxTraceparentMigration,
  '20261202130000_create_reports': createReports,
  '20261203100000_report_schedules': reportSchedules,
  '20261204140000_plain_words': plainWords,
};
