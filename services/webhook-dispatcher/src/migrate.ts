import { runMigrations, startMain } from '@assay/runtime';
import { migrations } from './db/migrations/index.js';

// `webhook-dispatcher migrate` (docker/entrypoint.sh): the schema to its latest migration, then exit (the chart's migration Job).
startMain(() => runMigrations({ service: 'webhook-dispatcher', schema: 'webhook', migrations, env: process.env }));
