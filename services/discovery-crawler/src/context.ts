import type { Kysely } from 'kysely';
import type { PgNotifier } from '@assay/db';
import type { EgressPolicy } from '@assay/egress';
import type { Logger } from '@assay/logger';
import type { TestCaseClient } from './clients/test-case.client.js';
import type { DiscoveryDatabase } from './db/database.js';

/** What every router of the discovery-crawler gets from `buildApp`. */
export interface DiscoveryContext {
  db: Kysely<DiscoveryDatabase>;
  schema: string;
  logger: Logger;
  testCases: TestCaseClient;
  notifier: PgNotifier;
  /** What targets this deployment lets sessions crawl (the crawler enforces the same policy on every connection). */
  egress: EgressPolicy;
  /** Tabs one session loads pages in at once (for estimates). */
  pagesInParallel: number;
  /** How often an idle stream sends a keep-alive comment (ms; 15 s by default). */
  keepAliveMs?: number;
}
