import type { Kysely } from 'kysely';
import type { Logger } from '@assay/logger';
import type { TestCaseDatabase } from './db/database.js';
import type { SecretBox } from './secret-box.js';

/** What every router of the test-case service gets from `buildApp`. */
export interface TestCaseContext {
  db: Kysely<TestCaseDatabase>;
  schema: string;
  logger: Logger;
  /** Seals and opens secret variables. */
  secrets: SecretBox;
}
