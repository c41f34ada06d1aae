/**
 * Writes that must land in the order they were made, without the caller
 * waiting for each: a case's live-stream writes (its start, each step's end)
 * go out behind its steps, and the case's result waits for all of them with
 * `drain()`. After a write fails the rest are skipped (a later one must not
 * land without the earlier), and `drain()` throws that first failure.
 */
export class InOrder {
  private chain: Promise<void> = Promise.resolve();
  private failure: { err: unknown } | undefined;

  /** Queues `write` after every write queued before it. */
  push(write: () => Promise<unknown>): void {
    this.chain = this.chain.then(async () => {
      if (this.failure) return;
      try {
        await write();
      } catch (err) {
        this.failure = { err };
      }
    });
  }

  /** Waits for every queued write. @throws the first write's error, if one failed. */
  async drain(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure.err;
  }

  /** Waits for every queued write, whatever their outcome (a case that ends early). */
  settled(): Promise<void> {
    return this.chain;
  }
}
