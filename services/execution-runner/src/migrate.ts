import { runMigrations, startMain } from '@assay/runtime';
import { migrations } from './db/migrations/index.js';

// `execution-runner migrate` (docker/entrypoint.sh): the schema to its latest migration, then exit (the chart's migration Job).
startMain(() => runMigrations({ service: 'execution-runner', schema: 'execution', migrations, env: process.env }));
