import { createSilentLogger } from '@assay/logger';
import { drainDue, DueScheduler, PeriodicTask, type DueOutcome } from './periodic.js';

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

describe('drainDue', () => {
  /** Items due in this order; `failing` throw when handled, `stopAt` says its dependency is down. */
  const queue = (ids: string[], opts: { failing?: string[]; stopAt?: string; claimFails?: boolean } = {}) => {
    const handled: string[] = [];
    const fire = async (skip: readonly string[], claimed: (id: string) => void): Promise<DueOutcome> => {
      if (opts.claimFails) throw new Error('database down');
      const next = ids.find((id) => !skip.includes(id) && !handled.includes(id));
      if (!next) return 'none';
      claimed(next);
      if (opts.failing?.includes(next)) throw new Error(`${next} broke`);
      if (next === opts.stopAt) return 'stop';
      handled.push(next);
      return 'done';
    };
    return { fire, handled };
  };
  const base = { stopped: () => false, logger: createSilentLogger(), what: 'test item' };

  it('handles every due item and answers how many', async () => {
    const q = queue(['a', 'b', 'c']);
    expect(await drainDue({ ...base, fire: q.fire })).toBe(3);
    expect(q.handled).toEqual(['a', 'b', 'c']);
  });

  it('steps over an item that throws, so the items due behind it still go', async () => {
    const q = queue(['a', 'b', 'c'], { failing: ['a'] });
    expect(await drainDue({ ...base, fire: q.fire })).toBe(2);
    expect(q.handled).toEqual(['b', 'c']);
  });

  it('ends the pass on stop, when nothing was claimed before a failure, at max, and when stopping', async () => {
    const stop = queue(['a', 'b', 'c'], { stopAt: 'b' });
    expect(await drainDue({ ...base, fire: stop.fire })).toBe(1);
    const broken = queue(['a'], { claimFails: true });
    expect(await drainDue({ ...base, fire: broken.fire })).toBe(0);
    const many = queue(Array.from({ length: 10 }, (_, i) => `i${i}`));
    expect(await drainDue({ ...base, fire: many.fire, max: 4 })).toBe(4);
    const stopping = queue(['a', 'b']);
    expect(await drainDue({ ...base, fire: stopping.fire, stopped: () => stopping.handled.length >= 1 })).toBe(1);
  });
});

describe('DueScheduler', () => {
  /** Hands out `due` one claim at a time; `broken` throw when handled; `stopping` stops the scheduler while handled. */
  class Items extends DueScheduler {
    readonly handled: string[] = [];
    constructor(
      private readonly due: string[],
      private readonly broken: string[] = [],
      private readonly stopping?: string,
    ) {
      super({ name: 'items tick', what: 'item', intervalMs: 60_000, logger: createSilentLogger() });
    }
    protected async fire(skip: readonly string[], claimed: (id: string) => void): Promise<DueOutcome> {
      const next = this.due.find((id) => !skip.includes(id) && !this.handled.includes(id));
      if (!next) return 'none';
      claimed(next);
      if (this.broken.includes(next)) throw new Error(`${next} broke`);
      if (next === this.stopping) void this.stop();
      this.handled.push(next);
      return 'done';
    }
  }

  it('drains what is due at each tick, stepping over an item that throws', async () => {
    const s = new Items(['a', 'b', 'c'], ['b']);
    expect(await s.tick()).toBe(2);
    expect(s.handled).toEqual(['a', 'c']);
    expect(await s.tick()).toBe(0);
  });

  it('ends the pass once stopped: nothing is claimed after stop', async () => {
    const s = new Items(['a', 'b', 'c'], [], 'a');
    expect(await s.tick()).toBe(1);
    expect(s.handled).toEqual(['a']);
  });
});
