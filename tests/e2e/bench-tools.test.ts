import { spawn } from 'node:child_process';
import { cpuByKind, interleaved, kindOf, median, regressions, spread } from '../bench/rounds.js';

// The bench tools that `make bench` and `make bench-check` rest on: a figure
// that regressed is caught, rounds alternate, CPU lands on the right kind.
describe('bench tools', () => {
  it('flags a figure more than 15 % worse than recorded, either way round, and nothing else', () => {
    const recorded = {
      'wall ratio': { value: 0.7, better: 'lower' as const, recorded_at: '2026-11-28T00:00:00Z', load: '0.1' },
      'pages/s ratio': { value: 2.5, better: 'higher' as const, recorded_at: '2026-11-28T00:00:00Z', load: '0.1' },
    };
    expect(regressions([{ bench: 'e', name: 'wall ratio', value: 0.8, better: 'lower' }], recorded)).toEqual([]);
    expect(regressions([{ bench: 'e', name: 'wall ratio', value: 0.81, better: 'lower' }], recorded)).toHaveLength(1);
    expect(regressions([{ bench: 'd', name: 'pages/s ratio', value: 2.2, better: 'higher' }], recorded)).toEqual([]);
    expect(regressions([{ bench: 'd', name: 'pages/s ratio', value: 2.1, better: 'higher' }], recorded)[0]).toMatch(/pages\/s ratio: 2.10 against 2.50 recorded/);
    expect(regressions([{ bench: 'x', name: 'never recorded', value: 0, better: 'higher' }], recorded)).toEqual([]);
  });

  it('alternates which side goes first and reports the median with its range', async () => {
    const order: string[] = [];
    // No wait for a quiet machine here: under the suite's own load it took up to 15 s a side.
    const rounds = await interleaved(
      async () => (order.push('b'), 1),
      async () => (order.push('a'), 2),
      undefined,
      { quiet: false },
    );
    expect(order).toEqual(['b', 'a', 'a', 'b', 'b', 'a']); // BENCH_ROUNDS defaults to 3
    expect(rounds).toEqual([{ baseline: 1, assay: 2 }, { baseline: 1, assay: 2 }, { baseline: 1, assay: 2 }]);
    expect(median([3, 1, 2])).toBe(2);
    expect(spread([0.9, 0.7, 0.8])).toBe('0.80x (0.70-0.90 over 3 rounds)');
  });

  it('names process kinds as the benches print them', () => {
    expect(kindOf('chromium renderer', false)).toBe('renderer');
    expect(kindOf('chromium zygote', false)).toBe('browser');
    expect(kindOf('execution-runner', false)).toBe('node service');
    expect(kindOf('postgres', false)).toBe('postgres');
    expect(kindOf('node', false)).toBe('test runner');
    expect(kindOf('node', true)).toBe('bench driver');
  });

  it('samples the CPU of a busy child, including one that exits before the sample ends', async () => {
    const meter = cpuByKind();
    // A node child spinning for 600 ms of its own CPU (not of the clock: a loaded machine gives it less), then exiting.
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', 'while (process.cpuUsage().user < 600_000);'], { stdio: 'ignore' });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
    });
    const by = meter.stop();
    // Sampled every 250 ms: at least the first 250 ms of its ~600 ms are seen.
    expect(by.get('test runner') ?? 0).toBeGreaterThanOrEqual(0.2);
  });
});
