import { createBus, startOutboxRelay } from '@assay/bus';
import { ConfigError } from '@assay/config';
import { createDatabase, isDatabaseReachable, migrateToLatest } from '@assay/db';
import { createLogger } from '@assay/logger';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import type { TestCaseDatabase } from './db/database.js';
import { migrations } from './db/migrations/index.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger('test-case', config.logLevel);
  const database = createDatabase<TestCaseDatabase>({ connectionString: config.databaseUrl, schema: config.schema, applicationName: 'assay-test-case' });
  await migrateToLatest(database, migrations);

  const bus = createBus({ kind: config.bus, databaseUrl: config.databaseUrl, kafkaBrokers: config.kafkaBrokers, clientId: 'assay-test-case', logger });
  await bus.start();
  const relay = startOutboxRelay({ db: database.db, listen: database.pool, schema: config.schema, bus, logger });

  const app = buildApp({
    db: database.db,
    schema: config.schema,
    logger,
    internalTokenSecret: config.internalTokenSecret,
    ready: async () => ({ database: await isDatabaseReachable(database.pool), bus: await bus.isHealthy() }),
  });
  const server = app.listen(config.port, config.host, () => logger.info({ port: config.port }, 'test-case listening'));

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close();
    await relay.stop();
    await bus.stop();
    await database.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
