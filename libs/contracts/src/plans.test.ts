import { PLAN_CATALOG, PLAN_NAMES, billedBrowserSeconds, periodResetsAt, planLimits, usagePeriod } from './index.js';

describe('the plan catalog', () => {
  it('holds the rate limits and test-case limits of the spec for the three paid plans', () => {
    expect(PLAN_CATALOG.starter.rate).toEqual({ minute: 30, hour: 500, day: 5_000 });
    expect(PLAN_CATALOG.growth.rate).toEqual({ minute: 60, hour: 1_000, day: 10_000 });
    expect(PLAN_CATALOG.pro.rate).toEqual({ minute: 120, hour: 5_000, day: 50_000 });
    expect(PLAN_NAMES.map((p) => PLAN_CATALOG[p].testCasesPerMinute)).toEqual([30, 30, 60, 120]);
  });

  it('holds the webhook limits of the spec table', () => {
    expect([PLAN_CATALOG.starter.webhooks, PLAN_CATALOG.growth.webhooks, PLAN_CATALOG.pro.webhooks]).toEqual([
      { webhooks: 3, eventsPerDay: 1_000, attempts: 3, historyDays: 7, conditionalRules: false },
      { webhooks: 10, eventsPerDay: 10_000, attempts: 7, historyDays: 30, conditionalRules: false },
      { webhooks: null, eventsPerDay: 100_000, attempts: 7, historyDays: 90, conditionalRules: true },
    ]);
  });

  it('gives API access to every plan but free', () => {
    expect(PLAN_NAMES.filter((p) => !PLAN_CATALOG[p].apiAccess)).toEqual(['free']);
  });

  it('treats an unknown plan name as free, never as unlimited', () => {
    expect(planLimits('platinum')).toBe(PLAN_CATALOG.free);
    expect(planLimits('growth')).toBe(PLAN_CATALOG.growth);
  });
});

describe('metering helpers', () => {
  it('bills browser time in 30-second units, rounded up, at least one unit per run', () => {
    expect([0, 1, 29_999, 30_000, 30_001, 61_000, 90_000].map(billedBrowserSeconds)).toEqual([30, 30, 30, 30, 60, 90, 90]);
  });

  it('names the UTC calendar month and when it resets', () => {
    const late = new Date('2026-12-31T23:59:59.999Z');
    expect(usagePeriod(late)).toBe('2026-12');
    expect(periodResetsAt(late).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(usagePeriod(new Date('2027-01-01T00:00:00.000Z'))).toBe('2027-01');
  });
});
