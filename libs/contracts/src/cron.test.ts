import { catchUp, cronProblems, nextOccurrences } from './cron.js';

describe('cron', () => {
  it('accepts five fields with ranges, steps and names, read in a time zone', () => {
    expect(cronProblems('*/15 9-17 * * MON-FRI', 'Europe/Paris')).toEqual([]);
    const [first] = nextOccurrences('0 9 * * *', 'America/New_York', new Date('2026-07-01T00:00:00Z'), 1);
    expect(first!.toISOString()).toBe('2026-07-01T13:00:00.000Z'); // 09:00 EDT
  });

  it('refuses other shapes, out-of-range values, unknown zones and dates that never come', () => {
    expect(cronProblems('* * * *', 'UTC').map((p) => p.field)).toEqual(['cron']);
    expect(cronProblems('0 * * * * *', 'UTC').map((p) => p.field)).toEqual(['cron']);
    expect(cronProblems('@daily', 'UTC').map((p) => p.field)).toEqual(['cron']);
    expect(cronProblems('0 24 * * *', 'UTC').map((p) => p.field)).toEqual(['cron']);
    expect(cronProblems('0 0 31 2 *', 'UTC').map((p) => p.field)).toEqual(['cron']);
    expect(cronProblems('0 * * * *', 'Nowhere/Land').map((p) => p.field)).toEqual(['timezone']);
  });

  it('catches up once: the latest missed occurrence, and how many before it were skipped', () => {
    const due = new Date('2026-01-01T00:00:00Z');
    expect(catchUp('*/5 * * * *', 'UTC', due, new Date('2026-01-01T00:00:30Z'))).toEqual({ latest: due, missed: 0 });
    expect(catchUp('*/5 * * * *', 'UTC', due, new Date('2026-01-01T01:01:00Z'))).toEqual({ latest: new Date('2026-01-01T01:00:00Z'), missed: 12 });
    // Years of downtime: still one run, for the latest occurrence; the count stops at 10,000.
    const long = catchUp('* * * * *', 'UTC', due, new Date('2028-01-01T00:00:30Z'));
    expect(long).toEqual({ latest: new Date('2028-01-01T00:00:00Z'), missed: 10_000 });
  });
});
