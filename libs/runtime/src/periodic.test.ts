import { createSilentLogger } from '@assay/logger';
import { PeriodicTask } from './periodic.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PeriodicTask', () => {
  it('never runs two passes at once: a tick during a pass joins it', async () => {
    let passes = 0;
    let release!: () => void;
    const task = new PeriodicTask('t', async () => {
      passes += 1;
      await new Promise<void>((r) => (release = r));
      return 7;
    }, { intervalMs: 60_000, logger: createSilentLogger() });
    const a = task.tick();
    const b = task.tick();
    release();
    expect(await Promise.all([a, b])).toEqual([7, 7]);
    expect(passes).toBe(1);
  });

  it('runs again after the interval, goes on after a failed pass, and stops', async () => {
    let passes = 0;
    const task = new PeriodicTask('t', async () => {
      passes += 1;
      if (passes === 1) throw new Error('boom');
      return 0;
    }, { intervalMs: 20, logger: createSilentLogger() });
    task.start();
    await sleep(200);
    await task.stop();
    const after = passes;
    expect(after).toBeGreaterThanOrEqual(3);
    expect(task.isStopped).toBe(true);
    await sleep(100);
    expect(passes).toBe(after);
  });
});
