import { runMigrations, startMain } from '@assay/runtime';
import { migrations } from './db/migrations/index.js';

// `analysis migrate` (docker/entrypoint.sh): the schema to its latest migration, then exit (the chart's migration Job).
startMain(() => runMigrations({ service: 'analysis', schema: 'analysis', migrations, env: process.env }));
