/**
 * Gathers the messages a bus hands over in one tick and handles them in one
 * go (one transaction): the bus passes messages one by one, but a fetched job
 * or batch arrives at once when the subscription's concurrency lets it. Each
 * caller's promise settles with its batch, so a batch that fails fails (and
 * redelivers) every message in it: its handler must be idempotent as a whole
 * (`handleManyOnce`).
 */
export class TickBatcher<T> {
  private pending: Array<{ item: T; done: (err?: unknown) => void }> = [];
  private scheduled = false;

  constructor(private readonly flush: (items: T[]) => Promise<void>) {}

  /** Adds `item` to this tick's batch; resolves when the batch was handled, rejects when it failed. */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, done: (err) => (err ? reject(err) : resolve()) });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        const batch = this.pending;
        this.pending = [];
        this.scheduled = false;
        this.flush(batch.map((b) => b.item)).then(
          () => batch.forEach((b) => b.done()),
          (err: unknown) => batch.forEach((b) => b.done(err ?? new Error('batch failed'))),
        );
      });
    });
  }
}
