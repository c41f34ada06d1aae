import { writeFile } from 'node:fs/promises';

/**
 * Where a case's time goes, by phase (context create, each action, fingerprint,
 * DB writes, event publish …), for `make bench BENCH_PROFILE=1`. Off unless
 * RUNNER_PROFILE_FILE is set: then `time` is a plain call and nothing is kept.
 */
export class PhaseProfile {
  private samples = new Map<string, number[]>();

  constructor(private readonly file: string | undefined) {}

  get enabled(): boolean {
    return this.file !== undefined;
  }

  add(phase: string, ms: number): void {
    if (!this.file) return;
    const list = this.samples.get(phase);
    if (list) list.push(ms);
    else this.samples.set(phase, [ms]);
  }

  /** `fn()`, timed under `phase` when profiling. */
  time<T>(phase: string, fn: () => Promise<T>): Promise<T> {
    if (!this.file) return fn();
    const t0 = performance.now();
    return fn().finally(() => this.add(phase, performance.now() - t0));
  }

  /** Writes the samples since the last flush (one execution's) to the file, as `{phase: ms[]}`, and starts over. */
  async flush(): Promise<void> {
    if (!this.file) return;
    const out = Object.fromEntries([...this.samples].map(([k, v]) => [k, v.map((ms) => Math.round(ms * 10) / 10)]));
    this.samples = new Map();
    await writeFile(this.file, JSON.stringify(out));
  }
}
