import type { Kysely } from 'kysely';
import type { Logger } from '@assay/logger';
import type { ArtifactLimits } from './artifacts/artifacts.repository.js';
import type { DiscoveryClient } from './clients/discovery.client.js';
import type { TestCaseClient } from './clients/test-case.client.js';
import type { ExecutionDatabase } from './db/database.js';
import type { ExecutionNotifier } from './executions/notifier.js';
import type { RecordingManager } from './recordings/recordings.service.js';
import type { SuiteSettings } from './suites/suite-settings.js';

/** What every router of the execution-runner gets from `buildApp`. */
export interface ExecutionContext {
  db: Kysely<ExecutionDatabase>;
  schema: string;
  logger: Logger;
  testCases: TestCaseClient;
  /** Generates a discovery session's test cases for a run of it; unset (no DISCOVERY_CRAWLER_URL): such runs answer 501. */
  discovery?: DiscoveryClient;
  notifier: ExecutionNotifier;
  publicBaseUrl: string;
  /** Test cases one runner process runs at once (for estimates). */
  concurrency: number;
  /** Caps of stored artifacts: uploads are held to them as screenshots and traces are. */
  artifacts: ArtifactLimits;
  /** Open recordings of this process; unset (no browser here): their routes answer 501. */
  recordings?: RecordingManager;
  /** Playwright suites' box, archive and shard settings; unset: their routes answer 501. */
  suites?: SuiteSettings;
}
