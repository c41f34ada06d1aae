import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal, type Principal } from '@assay/principal';
import { createTestDatabase, listen, TEST_INTERNAL_SECRET, type TestDatabase, type TestServer } from '@assay/testing';
import { buildApp } from '../src/app.js';
import type { AuthDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';

export const SESSION_SECRET = 'test-session-secret-0123456789abcdefghij';

export interface AuthHarness {
  database: Database<AuthDatabase>;
  /** The test database's URL (for a bus on it). */
  databaseUrl: string;
  server: TestServer;
  call(method: string, path: string, opts?: { principal?: Principal | null; body?: unknown; token?: string }): Promise<{ status: number; body: any }>;
  /** Provisions an organization with an owner through the internal API. */
  newOrganization(plan?: 'starter' | 'growth' | 'pro'): Promise<{ orgId: string; userId: string; email: string; password: string; owner: Principal }>;
  authenticate(credential: string): Promise<{ status: number; body: any }>;
  /** Events in auth's outbox, oldest first (optionally of one type and organization). */
  events(type?: string, orgId?: string): Promise<any[]>;
  close(): Promise<void>;
}

export const STRIPE_SECRET = 'whsec_test_0123456789abcdefghijklmnopqrstuv';

let counter = 0;

export async function startAuth(opts: { stripeWebhookSecret?: string } = {}): Promise<AuthHarness> {
  const testDb: TestDatabase = await createTestDatabase();
  const database = createDatabase<AuthDatabase>({ connectionString: testDb.url, schema: 'auth' });
  await migrateToLatest(database, migrations);
  const app = buildApp({
    db: database.db,
    schema: 'auth',
    logger: createSilentLogger(),
    internalTokenSecret: TEST_INTERNAL_SECRET,
    session: { secret: SESSION_SECRET, ttlSeconds: 3600 },
    stripeWebhookSecret: opts.stripeWebhookSecret ?? STRIPE_SECRET,
  });
  const server = await listen(app);

  const call: AuthHarness['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = {};
    const principal = opts.principal === undefined ? servicePrincipal('test') : opts.principal;
    if (opts.token) headers[PRINCIPAL_HEADER] = opts.token;
    else if (principal) headers[PRINCIPAL_HEADER] = await signPrincipal(TEST_INTERNAL_SECRET, principal);
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers,
      ...(opts.body !== undefined ? { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  return {
    database,
    databaseUrl: testDb.url,
    server,
    call,
    authenticate: (credential) => call('POST', '/internal/authenticate', { body: { credential } }),
    async events(type, orgId) {
      const rows = await database.db.selectFrom('outbox').select('envelope').orderBy('seq').execute();
      return rows.map((r) => r.envelope as any).filter((e) => (!type || e.event === type) && (!orgId || e.organization_id === orgId));
    },
    async newOrganization(plan = 'pro') {
      counter += 1;
      const email = `owner${counter}-${Date.now()}@example.test`;
      const password = 'correct horse battery staple';
      const res = await call('POST', '/internal/organizations', {
        body: { name: `Org ${counter}`, plan, owner: { email, name: `Owner ${counter}`, password } },
      });
      if (res.status !== 201) throw new Error(`provisioning failed: ${JSON.stringify(res.body)}`);
      const orgId = res.body.organization.id as string;
      const userId = res.body.owner.id as string;
      return {
        orgId,
        userId,
        email,
        password,
        owner: { org_id: orgId, sub: userId, kind: 'session', role: 'owner', scopes: [], plan },
      };
    },
    async close() {
      await server.close();
      await database.close();
      await testDb.drop();
    },
  };
}

export function keyPrincipal(orgId: string, scopes: string[] = [], kind: 'service_key' | 'api_key' = 'service_key'): Principal {
  return { org_id: orgId, sub: '00000000-0000-4000-8000-000000000001', kind, role: 'admin', scopes, plan: 'pro' };
}
