import { runMigrations, startMain } from '@assay/runtime';
import { migrations } from './db/migrations/index.js';

// `test-case migrate` (docker/entrypoint.sh): the schema to its latest migration, then exit (the chart's migration Job).
startMain(() => runMigrations({ service: 'test-case', schema: 'testcase', migrations, env: process.env }));
