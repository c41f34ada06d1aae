import type { Kysely } from 'kysely';
import type { Logger } from '@assay/logger';
import type { AuthDatabase } from './db/database.js';
import type { SessionConfig } from './sessions/sessions.service.js';

/** What every router of the auth service gets from `buildApp`. */
export interface AuthContext {
  db: Kysely<AuthDatabase>;
  /** The Postgres schema (for outbox notifications). */
  schema: string;
  session: SessionConfig;
  logger: Logger;
  /** Stripe's webhook endpoint secret; unset: the billing endpoint answers 501. */
  stripeWebhookSecret?: string;
}
