import { EventEmitter } from 'node:events';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from '@assay/logger';
import { EXECUTION_CHANNEL } from './executions.repository.js';

/**
 * One LISTEN connection per process that turns NOTIFYs about executions into
 * in-process events, so synchronous runs and SSE streams wait without polling
 * the database. Reconnects when the connection drops.
 */
export class ExecutionNotifier {
  private readonly emitter = new EventEmitter();
  private client: PoolClient | undefined;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly logger: Logger,
  ) {
    this.emitter.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const client = await this.pool.connect();
    this.client = client;
    client.on('notification', (n) => {
      if (n.payload) this.emitter.emit(n.payload);
    });
    client.on('error', (err) => {
      if (this.client !== client) return; // already stopped or replaced
      this.logger.warn({ err }, 'execution LISTEN connection lost; reconnecting');
      this.client = undefined;
      client.release(err);
      // Notifications may have been missed while disconnected: wake everyone to re-read.
      this.emitter.emit('*');
      if (!this.stopped) setTimeout(() => void this.start().catch(() => undefined), 1000).unref();
    });
    await client.query(`listen ${EXECUTION_CHANNEL}`);
  }

  /** Calls `fn` whenever execution `id` moves; returns the unsubscribe function. */
  on(id: string, fn: () => void): () => void {
    this.emitter.on(id, fn);
    this.emitter.on('*', fn);
    return () => {
      this.emitter.off(id, fn);
      this.emitter.off('*', fn);
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = undefined;
    // A LISTENing connection is never returned to the pool: destroy it.
    client?.release(true);
  }
}
