import { createDatabase } from '@assay/db';
import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';
import { createLogger } from '@assay/logger';
import type { WebhookDatabase } from '../src/db/database.js';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import { SecretBox } from '../src/shared/secrets.js';

// A dispatcher in its own process, for the crash test: it prints one JSON line once started.
const database = createDatabase<WebhookDatabase>({ connectionString: process.env.DATABASE_URL!, schema: 'webhook' });
const dispatcher = new Dispatcher({
  db: database.db,
  secrets: new SecretBox(process.env.WEBHOOK_SECRET_KEY!),
  logger: createLogger('webhook-dispatcher', 'silent'),
  concurrency: 64,
  batchSeconds: 30,
  egress: new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true }),
});
dispatcher.start();
process.stdout.write(`${JSON.stringify({ started: true, pid: process.pid })}\n`);
