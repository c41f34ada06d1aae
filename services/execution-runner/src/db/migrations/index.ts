import type { Migration } from '@assay/db';
import { outboxMigration, outboxTraceparentMigration } from '@assay/bus';
import * as createExecutionTables from './20261122140000_create_execution_tables.js';
import * as addTraces from './20261122160000_add_traces.js';
import * as artifactRetention from './20261123100000_artifact_retention.js';
import * as uploadedArtifacts from './20261201120000_uploaded_artifacts.js';
import * as createSchedules from './20261201130000_create_schedules.js';
import * as testRuns from './20261202120000_test_runs.js';
import * as caseRuns from './20261204120000_case_runs.js';
import * as screenshotBaselines from './20261205120000_screenshot_baselines.js';
import * as suites from './20261210120000_suites.js';
import * as suiteListing from './20261211120000_suite_listing.js';

/** Every migration of the `execution` schema, in order. */
export const migrations: Record<string, Migration> = {
  '20261122135900_create_outbox': outboxMigration,
  '20261122140000_create_execution_tables': createExecutionTables,
  '20261122160000_add_traces': addTraces,
  '20261123100000_artifact_retention': artifactRetention,
  '20261201120000_uploaded_artifacts': uploadedArtifacts,
  '20261201130000_create_schedules': createSchedules,
  '20261202100000_outbox_traceparent': outboxTraceparentMigration,
  '20261202120000_test_runs': testRuns,
  '20261204120000_case_runs': caseRuns,
  '20261205120000_screenshot_baselines': screenshotBaselines,
  '20261210120000_suites': suites,
  '20261211120000_suite_listing': suiteListing,
};
