import type { Kysely } from 'kysely';
import type { Logger } from '@assay/logger';
import type { RunnerClient } from './clients/runner.client.js';
import type { TestCaseClient } from './clients/test-case.client.js';
import type { AnalysisDatabase } from './db/database.js';

/** What every router of the analysis service gets from `buildApp`. */
export interface AnalysisContext {
  db: Kysely<AnalysisDatabase>;
  schema: string;
  logger: Logger;
  runner: RunnerClient;
  testCases: TestCaseClient;
  /** Tells the worker that work is due now. */
  workDue(): void;
}
