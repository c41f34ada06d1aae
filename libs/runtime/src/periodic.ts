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

/** What one claim of a `drainDue` pass did. */
export type DueOutcome = 'none' | 'done' | 'stop';

export interface DrainDueOptions {
  /** Claims and handles the next due item that is not in `skip`, telling `claimed` its id first: `none` when nothing is due, `stop` to end the pass (a dependency everything needs is down). */
  fire(skip: readonly string[], claimed: (id: string) => void): Promise<DueOutcome>;
  /** Checked before each claim: a stopping service ends the pass. */
  stopped(): boolean;
  logger: Logger;
  /** What a failed item is, for the log (`scheduled report snapshot`). */
  what: string;
  /** Claims per pass at most, so one pass never runs forever (100). */
  max?: number;
}

/**
 * One pass over due items (schedules, report snapshots), each claimed and
 * handled on its own. An item that throws is logged and skipped for the rest
 * of the pass, so the items due behind it still go; it is due again at the
 * next pass. Resolves with how many items were handled.
 */
export async function drainDue(o: DrainDueOptions): Promise<number> {
  let handled = 0;
  const skip: string[] = [];
  for (let i = 0; i < (o.max ?? 100) && !o.stopped(); i++) {
    let claimed: string | undefined;
    let outcome: DueOutcome;
    try {
      outcome = await o.fire(skip, (id) => (claimed = id));
    } catch (err) {
      o.logger.warn({ err, id: claimed }, `${o.what} failed; tried again at the next pass`);
      // Nothing claimed (the claim itself failed): no item to step over, so the pass ends.
      if (!claimed) break;
      skip.push(claimed);
      continue;
    }
    if (outcome !== 'done') break;
    handled += 1;
  }
  return handled;
}

/**
 * The shape of every "claim what is due" scheduler (run schedules, report
 * snapshots): a `drainDue` pass over `fire` now and then every `intervalMs`,
 * on a PeriodicTask. A subclass says how one due item is claimed and handled.
 */
export abstract class DueScheduler {
  private readonly task: PeriodicTask;

  protected constructor(o: { name: string; what: string; intervalMs: number; logger: Logger }) {
    const pass = () => drainDue({ fire: (skip, claimed) => this.fire(skip, claimed), stopped: () => this.task.isStopped, logger: o.logger, what: o.what });
    this.task = new PeriodicTask(o.name, pass, { intervalMs: o.intervalMs, logger: o.logger });
  }

  /** Claims and handles the next due item not in `skip` (see DrainDueOptions.fire). */
  protected abstract fire(skip: readonly string[], claimed: (id: string) => void): Promise<DueOutcome>;

  start(): void {
    this.task.start();
  }

  /** Handles every item due now (or joins the pass running); resolves with how many it handled. */
  tick(): Promise<number> {
    return this.task.tick();
  }

  /** No new pass starts; resolves once the running one ended. */
  stop(): Promise<void> {
    return this.task.stop();
  }
}
