import type { ExecutionEvent } from '@assay/client';
import { styles } from './options.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Where progress goes: a stream (stdout, stderr) or anything with `write`. */
export interface TextOut {
  write(text: string): unknown;
  columns?: number;
}

interface Running {
  name: string;
  steps: number;
  lastStep?: string;
}

/**
 * Prints a run as it happens. On a terminal each running test has a live line
 * (its latest step) that turns into ✓/✗ when it finishes; elsewhere (CI, a
 * pipe) every finished test is one plain line.
 */
export class RunProgress {
  private readonly running = new Map<string, Running>();
  private drawn = 0;
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly s: ReturnType<typeof styles>;

  constructor(
    private readonly out: TextOut,
    private readonly live: boolean,
  ) {
    this.s = styles(live);
    if (live) this.timer = setInterval(() => this.redraw(), 120);
  }

  line(text: string): void {
    this.print([text]);
  }

  onEvent(e: ExecutionEvent): void {
    switch (e.event) {
      case 'status':
        if (e.data.status === 'running' && e.data.total !== undefined) this.print([this.s.dim(`Running ${e.data.total} test case${e.data.total === 1 ? '' : 's'}`)]);
        if (e.data.status === 'queued' && e.data.reason) this.print([this.s.yellow(`Queued again: ${e.data.reason}`)]);
        return;
      case 'test_started':
        this.running.set(e.data.test_id, { name: e.data.name, steps: 0 });
        return this.redraw();
      case 'step_finished': {
        const r = this.running.get(e.data.test_id);
        if (r) {
          r.steps++;
          r.lastStep = e.data.name;
        }
        return this.redraw();
      }
      case 'test_finished': {
        this.running.delete(e.data.test_id);
        const time = `${(e.data.duration_ms / 1000).toFixed(1)} s`;
        if (e.data.status === 'passed') return this.print([`${this.live ? this.s.green('✓') : 'PASS'} ${e.data.name} ${this.s.dim(`(${time})`)}`]);
        if (e.data.status === 'skipped') return this.print([`${this.live ? this.s.yellow('-') : 'SKIP'} ${e.data.name}`]);
        return this.print([
          `${this.live ? this.s.red('✗') : 'FAIL'} ${e.data.name} ${this.s.dim(`(${time})`)}`,
          ...(e.data.error ? [`    ${this.s.red(e.data.error)}`] : []),
          ...(e.data.screenshot ? [`    ${this.s.dim(`screenshot: ${e.data.screenshot}`)}`] : []),
        ]);
      }
      case 'completed':
        this.running.clear();
        return this.redraw();
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.running.clear();
    this.redraw();
  }

  /** Finished lines go above the live block, which is drawn again below them. */
  private print(lines: string[]): void {
    this.erase();
    this.out.write(lines.map((l) => `${l}\n`).join(''));
    this.drawLive();
  }

  private redraw(): void {
    if (!this.live) return;
    this.erase();
    this.drawLive();
  }

  private erase(): void {
    if (this.drawn > 0) this.out.write(`\x1b[${this.drawn}A\x1b[0J`);
    this.drawn = 0;
  }

  private drawLive(): void {
    if (!this.live || this.running.size === 0) return;
    const width = Math.max(20, (this.out.columns ?? 80) - 1);
    const spin = SPINNER[this.frame++ % SPINNER.length]!;
    const lines = [...this.running.values()].map((r) => {
      const line = `${spin} ${r.name}${r.lastStep ? ` · step ${r.steps}: ${r.lastStep}` : ''}`;
      return this.s.dim(line.length > width ? `${line.slice(0, width - 1)}…` : line);
    });
    this.out.write(lines.map((l) => `${l}\n`).join(''));
    this.drawn = lines.length;
  }
}
