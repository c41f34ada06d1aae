import { runMigrations, startMain } from '@assay/runtime';
import { migrations } from './db/migrations/index.js';

// `discovery-crawler migrate` (docker/entrypoint.sh): the schema to its latest migration, then exit (the chart's migration Job).
startMain(() => runMigrations({ service: 'discovery-crawler', schema: 'discovery', migrations, env: process.env }));
