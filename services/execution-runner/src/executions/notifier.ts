import type { Pool } from 'pg';
import { PgNotifier } from '@assay/db';
import type { Logger } from '@assay/logger';
import { EXECUTION_CHANNEL } from './executions.repository.js';

/** NOTIFYs about executions (payload: the execution id) as in-process events. */
export class ExecutionNotifier extends PgNotifier {
  constructor(pool: Pool, logger: Logger) {
    super(pool, EXECUTION_CHANNEL, (err) => logger.warn({ err }, 'execution LISTEN connection lost; reconnecting'));
  }
}
