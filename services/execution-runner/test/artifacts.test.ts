import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { purgeExpiredArtifacts, storeArtifact } from '../src/artifacts/artifacts.repository.js';
import { startRunnerHarness, type RunnerHarness } from './harness.js';

jest.setTimeout(120_000);

let h: RunnerHarness;
beforeAll(async () => {
  // Caps small enough for a test: a full-page screenshot of the shop is larger than 8 KB.
  h = await startRunnerHarness({ stepTimeoutMs: 2000, artifacts: { maxBytes: 8 * 1024, orgQuotaBytes: 64 * 1024 } });
});
afterAll(() => h.close());

describe('artifact caps and expiry', () => {
  it('fails a screenshot step whose image is over the cap per artifact, saying so, and stores nothing', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({ shot: [{ action: 'navigate', value: '/' }, { action: 'screenshot', description: 'home' }] });
    const r = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    const [result] = r.body.results.test_results;
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^Screenshot not stored: the screenshot \(\d+ KB\) is larger than the 8 KB allowed per artifact$/);
    expect(await h.database.db.selectFrom('artifacts').select('id').where('org_id', '=', t.orgId).execute()).toEqual([]);
  });

  it('keeps an organization within its quota, even when two artifacts race for the last bytes', async () => {
    const db = h.database.db;
    const org = randomUUID();
    const { projectId, planId } = await h.tenant().plan({ x: [{ action: 'navigate', value: '/' }] });
    const exec = await db
      .insertInto('executions')
      .values({ org_id: org, project_id: projectId, project_name: 'p', test_plan_id: planId, test_plan_name: 'p', environment: null, base_url: 'http://x', variables: '{}', timeout_seconds: 60, total_tests: 0, error: null, lease_owner: null, cancellation_reason: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const limits = { maxBytes: 8 * 1024, orgQuotaBytes: 20 * 1024 };
    const put = (kb: number) => storeArtifact(db, limits, { org_id: org, execution_id: exec.id, kind: 'screenshot', content_type: 'image/png', data: Buffer.alloc(kb * 1024), keep_days: 7 });
    await put(8);
    await put(8);
    // 4 KB are left: of two 3 KB artifacts at once, exactly one fits.
    const race = await Promise.allSettled([put(3), put(3)]);
    expect(race.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = race.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.message).toBe("the organization's artifact storage (20 KB) is full: older screenshots and traces expire after the plan's history period");
    const usage = await db.selectFrom('artifact_usage').select('bytes').where('org_id', '=', org).executeTakeFirstOrThrow();
    expect(Number(usage.bytes)).toBe(19 * 1024);
    expect(Number((await sql<{ s: string }>`select sum(size) as s from artifacts where org_id = ${org}`.execute(db)).rows[0]!.s)).toBe(19 * 1024);
  });

  it('notes a failure screenshot a cap refused in the result, and stops serving an artifact past its plan’s history period', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({ broken: [{ action: 'navigate', value: '/' }, { action: 'click', selector: '#nope' }] });
    const r = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    const [result] = r.body.results.test_results;
    expect(result).toMatchObject({ status: 'failed', error: expect.stringMatching(/^Element not found: #nope/) });
    expect(result.screenshot).toBeUndefined();
    const row = await h.database.db.selectFrom('test_results').select('diagnostics').where('execution_id', '=', r.body.id).executeTakeFirstOrThrow();
    expect((row.diagnostics as any).artifacts_not_stored).toEqual([expect.stringMatching(/^the screenshot \(\d+ KB\) is larger than the 8 KB allowed per artifact$/)]);

    const exec = await h.database.db.selectFrom('executions').select('history_days').where('id', '=', r.body.id).executeTakeFirstOrThrow();
    expect(exec.history_days).toBe(90); // the harness's principals are on Pro
    const id = await storeArtifact(h.database.db, { maxBytes: 8 * 1024, orgQuotaBytes: 64 * 1024 }, { org_id: t.orgId, execution_id: r.body.id, kind: 'screenshot', content_type: 'image/png', data: Buffer.alloc(4096), keep_days: exec.history_days });
    const stored = await h.database.db.selectFrom('artifacts').select(['expires_at', 'created_at']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(Math.round((stored.expires_at!.getTime() - stored.created_at.getTime()) / 86_400_000)).toBe(90);
    expect((await t.ex('GET', `/api/v1/artifacts/${id}`)).status).toBe(200);
    await h.database.db.updateTable('artifacts').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', id).execute();
    const gone = await t.ex('GET', `/api/v1/artifacts/${id}`);
    expect(gone).toMatchObject({ status: 404, body: { error: 'not_found', message: "Artifact not found (screenshots and traces are kept for the plan's history period: 7 days on Starter, 30 days on Growth, 90 days on Pro)" } });
    expect(await purgeExpiredArtifacts(h.database.db)).toBeGreaterThanOrEqual(1);
    expect(await h.database.db.selectFrom('artifacts').select('id').where('id', '=', id).execute()).toEqual([]);
    const usage = await h.database.db.selectFrom('artifact_usage').select('bytes').where('org_id', '=', t.orgId).executeTakeFirstOrThrow();
    expect(Number(usage.bytes)).toBe(0);
  });
});
