import type { Migration } from '@assay/db';
import { outboxMigration, outboxTraceparentMigration } from '@assay/bus';
import * as createDiscoveryTables from './20261122150000_create_discovery_tables.js';
import * as addEnrichment from './20261123110000_add_enrichment.js';
import * as endpointTimings from './20261125210000_endpoint_timings.js';
import * as spaPages from './20261203100000_spa_pages.js';
import * as meteredPages from './20261204100000_metered_pages.js';

/** Every migration of the `discovery` schema, in order. */
export const migrations: Record<string, Migration> = {
  '20261122145900_create_outbox': outboxMigration,
  '20261122150000_create_discovery_tables': createDiscoveryTables,
  '20261123110000_add_enrichment': addEnrichment,
  '20261125210000_endpoint_timings': endpointTimings,
  '20261202100000_outbox_traceparent': outboxTraceparentMigration,
  '20261203100000_spa_pages': spaPages,
  '20261204100000_metered_pages': meteredPages,
};
