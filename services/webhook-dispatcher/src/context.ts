import type { Kysely } from 'kysely';
import type { EgressPolicy } from '@assay/egress';
import type { Logger } from '@assay/logger';
import type { WebhookDatabase } from './db/database.js';
import type { Clock } from './shared/clock.js';
import type { SecretBox } from './shared/secrets.js';

/** What every router of the webhook-dispatcher gets from `buildApp`. */
export interface WebhookContext {
  db: Kysely<WebhookDatabase>;
  logger: Logger;
  secrets: SecretBox;
  clock: Clock;
  /** Plain HTTP to loopback hosts is accepted (local development). */
  allowLocalHttp: boolean;
  /** Registration refuses URLs whose host the egress policy denies (the sender checks again on connect). */
  egress: EgressPolicy;
  /** Tells the dispatcher that deliveries are due now. */
  deliveriesDue(): void;
}
