import type { Logger } from '@assay/logger';

/**
 * Runs `pass` now and then every `intervalMs` after the previous pass ended,
 * never two at once: a `tick()` during a pass joins it. `pass` returns how
 * much it handled; a failed pass is logged and the next one runs on time.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(
    private readonly name: string,
    private readonly pass: () => Promise<number>,
    private readonly o: { intervalMs: number; logger: Logger },
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      void this.tick()
        .catch((err) => this.o.logger.warn({ err }, `${this.name} failed`))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, this.o.intervalMs);
        });
    };
    loop();
  }

  /** Runs a pass now (or joins the one running); resolves with what it handled. */
  tick(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  /** No new pass starts; resolves once the running one ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
