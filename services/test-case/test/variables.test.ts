import { servicePrincipal, signPrincipal } from '@assay/principal';
import { TEST_INTERNAL_SECRET, useHarness } from '@assay/testing';
import { startTestCaseService } from './harness.js';

// Per-project variables and secrets (issue 31): secrets sealed at rest,
// write-only through the API, in clear only on the runner's internal route.
const h = useHarness(() => startTestCaseService());

const SECRET = 'hunter2-correct-horse';

async function internal(orgId: string, path: string) {
  const res = await fetch(`${h.server.url}${path}`, { headers: { 'x-assay-principal': await signPrincipal(TEST_INTERNAL_SECRET, { ...servicePrincipal('execution-runner'), org_id: orgId }) } });
  return { status: res.status, body: (await res.json()) as any };
}

describe('project variables and secrets', () => {
  it('stores a secret only encrypted, never answers it, and hands it in clear to the runner for the right environment', async () => {
    const t = h.tenant();
    const p = await t.project({ environments: { staging: 'http://localhost:9/staging' } });
    const put = (name: string, body: unknown, env = '') => t.call('PUT', `/api/v1/projects/${p.id}/variables/${name}${env ? `?environment=${env}` : ''}`, body);
    const created = await put('password', { value: SECRET, secret: true });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ name: 'password', environment: null, secret: true, value: null, reference: '{{secret.password}}', created_at: expect.any(String), updated_at: expect.any(String) });
    expect((await put('email', { value: 'user@shop.test' })).body).toMatchObject({ value: 'user@shop.test', secret: false, reference: '{{email}}' });
    expect((await put('password', { value: 'staging-only-secret', secret: true }, 'staging')).status).toBe(201);
    expect((await put('password', { value: SECRET, secret: true })).status).toBe(200);

    const list = await t.call('GET', `/api/v1/projects/${p.id}/variables`);
    expect(list.body.data.map((v: { name: string; environment: string | null; value: string | null }) => [v.name, v.environment, v.value])).toEqual([
      ['email', null, 'user@shop.test'],
      ['password', null, null],
      ['password', 'staging', null],
    ]);
    expect(JSON.stringify(list.body)).not.toContain(SECRET);
    // At rest: sealed, not the value.
    const rows = await h.database.db.selectFrom('project_variables').selectAll().where('project_id', '=', p.id).execute();
    expect(JSON.stringify(rows)).not.toContain(SECRET);
    expect(rows.find((r) => r.name === 'password' && r.environment === '')!.ciphertext).toMatch(/^v1:/);

    expect((await internal(t.orgId, `/internal/projects/${p.id}/run-variables`)).body).toEqual({ variables: { email: 'user@shop.test' }, secrets: { password: SECRET } });
    expect((await internal(t.orgId, `/internal/projects/${p.id}/run-variables?environment=staging`)).body.secrets).toEqual({ password: 'staging-only-secret' });

    // A sealed value moved to another variable does not open.
    await h.database.db.updateTable('project_variables').set({ ciphertext: rows.find((r) => r.environment === 'staging')!.ciphertext }).where('project_id', '=', p.id).where('environment', '=', '').where('name', '=', 'password').execute();
    expect((await internal(t.orgId, `/internal/projects/${p.id}/run-variables`)).status).toBe(500);
  });

  it('refuses bad names, short secrets, unknown environments, other organizations and the public API’s callers on the internal route', async () => {
    const t = h.tenant();
    const p = await t.project();
    const bad = async (path: string, body: unknown) => (await t.call('PUT', path, body)).body.details;
    expect(await bad(`/api/v1/projects/${p.id}/variables/1x`, { value: 'v' })).toEqual([{ field: 'name', message: expect.stringContaining('must start with a letter') }]);
    expect(await bad(`/api/v1/projects/${p.id}/variables/pin`, { value: '123', secret: true })).toEqual([{ field: 'value', message: expect.stringContaining('at least 4 characters') }]);
    expect(await bad(`/api/v1/projects/${p.id}/variables/pin?environment=prod`, { value: '1234' })).toEqual([{ field: 'environment', message: 'the project defines no environments: leave it out' }]);
    expect((await t.call('PUT', `/api/v1/projects/${p.id}/variables/pin`, { value: 7 })).status).toBe(400);
    expect((await t.call('DELETE', `/api/v1/projects/${p.id}/variables/nope`)).status).toBe(404);

    await t.call('PUT', `/api/v1/projects/${p.id}/variables/token`, { value: SECRET, secret: true });
    const other = h.tenant();
    for (const [method, path] of [['GET', `/api/v1/projects/${p.id}/variables`], ['PUT', `/api/v1/projects/${p.id}/variables/token`], ['DELETE', `/api/v1/projects/${p.id}/variables/token`]] as const) {
      expect((await other.call(method, path, method === 'PUT' ? { value: 'planted', secret: false } : undefined)).status).toBe(404);
    }
    expect((await internal(other.orgId, `/internal/projects/${p.id}/run-variables`)).status).toBe(404);
    expect((await t.call('GET', `/internal/projects/${p.id}/run-variables`)).status).toBe(403);
    expect((await t.call('DELETE', `/api/v1/projects/${p.id}/variables/token`)).body).toEqual({ name: 'token', environment: null, deleted: true });
    expect((await t.call('GET', `/api/v1/projects/${p.id}/variables`)).body.data).toEqual([]);
  });
});
