import { runService, startMain } from '@assay/runtime';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import type { TestCaseDatabase } from './db/database.js';
import { migrations } from './db/migrations/index.js';

startMain(async () => {
  const config = loadConfig(process.env);
  await runService<TestCaseDatabase>({
    config,
    migrations,
    build: ({ database, logger, ready }) =>
      buildApp({ db: database.db, schema: config.schema, logger, internalTokenSecret: config.internalTokenSecret, secretsKey: config.secretsKey, ready }),
  });
});
