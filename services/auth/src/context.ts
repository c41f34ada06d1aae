import type { Kysely } from 'kysely';
import type { Logger } from '@assay/logger';
import type { AuthDatabase } from './db/database.js';

/** How sign-ins and their access tokens are made (the session routes' part of the context). */
export interface SessionConfig {
  secret: string;
  /** How long a sign-in lasts (its refresh cookie), from the sign-in. */
  ttlSeconds: number;
  /** Lifetime of each access token (default 900 s): what a leaked one is worth. */
  accessTtlSeconds?: number;
}

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
