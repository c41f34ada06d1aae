import { EventEmitter } from 'node:events';
import type pg from 'pg';

/**
 * One LISTEN connection per process on one channel that turns NOTIFYs (their
 * payload is an aggregate id) into in-process events, so waits and SSE streams
 * need no polling. Reconnects when the connection drops, and then wakes every
 * listener once, since notifications may have been missed meanwhile.
 */
export class PgNotifier {
  private readonly emitter = new EventEmitter();
  private client: pg.PoolClient | undefined;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    /** Told when the connection was lost (a reconnect follows). */
    private readonly onLost: (err: Error) => void = () => undefined,
  ) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`Invalid channel name "${channel}"`);
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
      this.onLost(err);
      this.client = undefined;
      client.release(err);
      this.emitter.emit('*');
      this.reconnect();
    });
    await client.query(`listen ${this.channel}`);
  }

  /**
   * Listens again, every second until it works: a Postgres restart refuses connections for a while,
   * and one failed attempt used to end the retries for good (found by `make soak`: after a Postgres
   * restart waits and streams fell back to their slow re-checks for the rest of the process's life).
   */
  private reconnect(): void {
    if (this.stopped) return;
    setTimeout(() => {
      if (this.stopped || this.client) return;
      this.start().then(
        // Notifications sent while nobody listened are lost: wake every listener to re-check.
        () => this.emitter.emit('*'),
        (err: Error) => {
          const client = this.client;
          this.client = undefined;
          client?.release(err);
          this.reconnect();
        },
      );
    }, 1000).unref();
  }

  /** Calls `fn` whenever aggregate `id` is notified; returns the unsubscribe function. */
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
