import type { Migration } from '@assay/db';
import { outboxMigration, outboxTraceparentMigration } from '@assay/bus';
import * as createWebhookTables from './20261122160000_create_webhook_tables.js';
import * as deliveryQueue from './20261122170000_delivery_queue.js';
import * as deliveryTraceparent from './20261202100100_delivery_traceparent.js';

/** Every migration of the `webhook` schema, in order. */
export const migrations: Record<string, Migration> = {
  '20261122155900_create_outbox': outboxMigration,
  '20261122160000_create_webhook_tables': createWebhookTables,
  '20261122170000_delivery_queue': deliveryQueue,
  '20261202100000_outbox_traceparent': outboxTraceparentMigration,
  '20261202100100_delivery_traceparent': deliveryTraceparent,
};
