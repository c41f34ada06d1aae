import { batchTarget } from './suite-runs.repository.js';

/**
 * Two equally fast shards taking from one queue of equal units, each taking its next batch when its last one
 * ends (the shard that is free first asks first); returns when each shard ends.
 */
function simulate(units: number[], shards: number, minBatchMs: number): number[] {
  const queue = [...units];
  const ends = Array.from({ length: shards }, () => 0);
  for (;;) {
    const shard = ends.indexOf(Math.min(...ends));
    if (queue.length === 0) return ends;
    const target = batchTarget(
      queue.reduce((s, u) => s + u, 0),
      shards,
      minBatchMs,
    );
    let sum = 0;
    let taken = 0;
    while (queue.length > 0 && (taken === 0 || sum + queue[0]! <= target)) {
      sum += queue.shift()!;
      taken += 1;
    }
    ends[shard]! += sum;
  }
}

describe('the batch a shard takes from the queue', () => {
  it('is a quarter of what is left for two shards while that is over the floor', () => {
    expect(batchTarget(200_000, 2, 15_000)).toBe(50_000);
  });

  it('is at least the floor while an even share of what is left is larger', () => {
    expect(batchTarget(40_000, 2, 15_000)).toBe(15_000);
  });

  it('is never more than an even share of what is left', () => {
    expect(batchTarget(20_000, 2, 15_000)).toBe(10_000);
  });

  it('ends two shards of a short run within one unit of each other', () => {
    // 50 s of 1 s units with a 15 s floor: the floor alone gave 15 + 15 to one shard and 15 + 5 to the other.
    const ends = simulate(Array.from({ length: 50 }, () => 1_000), 2, 15_000);
    expect(Math.abs(ends[0]! - ends[1]!)).toBeLessThanOrEqual(1_000);
    expect(ends[0]! + ends[1]!).toBe(50_000);
  });
});
