import { nextAttemptAt, parseRetryAfter } from './retry.js';

const t0 = new Date('2026-11-22T12:00:00Z');
const MIN = 60_000;

describe('nextAttemptAt', () => {
  it('follows the spec schedule after each failed attempt and stops at the plan’s count', () => {
    const after = (attempt: number, max: number) => {
      const next = nextAttemptAt(t0, attempt, max);
      return next && (next.getTime() - t0.getTime()) / MIN;
    };
    expect([1, 2, 3, 4, 5, 6].map((a) => after(a, 7))).toEqual([1, 5, 15, 60, 180, 360]);
    expect(after(7, 7)).toBeNull();
    expect([after(1, 3), after(2, 3), after(3, 3)]).toEqual([1, 5, null]);
    expect(after(1, 1)).toBeNull();
  });

  it('waits for a later Retry-After, never shorter than the schedule, at most 24 hours', () => {
    expect(nextAttemptAt(t0, 1, 7, 10 * MIN)!.getTime() - t0.getTime()).toBe(10 * MIN);
    expect(nextAttemptAt(t0, 1, 7, 1000)!.getTime() - t0.getTime()).toBe(MIN);
    expect(nextAttemptAt(t0, 1, 7, 48 * 60 * MIN)!.getTime() - t0.getTime()).toBe(24 * 60 * MIN);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates and ignores anything else', () => {
    expect(parseRetryAfter('120', t0)).toBe(120_000);
    expect(parseRetryAfter(' 5 ', t0)).toBe(5000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:02:00 GMT', t0)).toBe(2 * MIN);
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', t0)).toBe(0);
    expect(parseRetryAfter('soon', t0)).toBeUndefined();
    expect(parseRetryAfter(undefined, t0)).toBeUndefined();
  });
});
