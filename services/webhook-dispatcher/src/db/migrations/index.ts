import type { Migration } from '@assay/db';
import { outboxMigration } from '@assay/bus';
import * as createWebhookTables from './20261122160000_create_webhook_tables.js';
import * as deliveryQueue from './20261122170000_delivery_queue.js';

/** Every migration of the `webhook` schema, in order. */
export const migrations: Record<string, Migration> = {
  '20261122155900_create_outbox': outboxMigration,
  '20261122160000_create_webhook_tables': createWebhookTables,
  '20261122170000_delivery_queue': deliveryQueue,
};
