import type { BrowserContext } from 'playwright-core';

/**
 * The case's steps as named groups of its Playwright trace
 * (`tracing.group` / `groupEnd`), so the trace viewer lists "Step 2 of 5 ·
 * Fill #email" with Playwright's own calls folded inside, instead of a flat
 * list of low-level calls. A failing step gets a marker group inside its
 * group ("✗ Failed: <error>"), since most of our assertions poll and leave no
 * failed Playwright call of their own; steps skipped after it are listed as
 * empty groups. Every call is a no-op when the case records no trace, and a
 * tracing error never fails a step.
 */
export class TraceSteps {
  constructor(
    private readonly context: BrowserContext,
    private readonly enabled: boolean,
    private readonly total: number,
  ) {}

  /** The group title of a step (1-based `position`). */
  static title(position: number, total: number, name: string): string {
    return `Step ${position} of ${total} · ${name}`;
  }

  async begin(index: number, name: string): Promise<void> {
    if (!this.enabled) return;
    await this.context.tracing.group(TraceSteps.title(index + 1, this.total, name)).catch(() => undefined);
  }

  async end(error?: string): Promise<void> {
    if (!this.enabled) return;
    if (error !== undefined) await this.marker(`✗ Failed: ${error}`);
    await this.context.tracing.groupEnd().catch(() => undefined);
  }

  /** A step that did not run because an earlier one failed. */
  async skipped(index: number, name: string): Promise<void> {
    if (!this.enabled) return;
    await this.context.tracing.group(`${TraceSteps.title(index + 1, this.total, name)} (skipped)`).catch(() => undefined);
    await this.context.tracing.groupEnd().catch(() => undefined);
  }

  private async marker(text: string): Promise<void> {
    await this.context.tracing.group(text.length > 300 ? `${text.slice(0, 299)}…` : text).catch(() => undefined);
    await this.context.tracing.groupEnd().catch(() => undefined);
  }
}
