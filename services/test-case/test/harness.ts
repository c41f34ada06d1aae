import { randomUUID } from 'node:crypto';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from '@assay/principal';
import { createTestDatabase, listen, type Reply, TEST_INTERNAL_SECRET, type TestDatabase, type TestServer } from '@assay/testing';
import { buildApp } from '../src/app.js';
import type { TestCaseDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';

export type { Reply } from '@assay/testing';

export interface Tenant {
  orgId: string;
  principal: Principal;
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  /** A multipart upload with fields and one file. */
  upload(path: string, fields: Record<string, string>, file?: { name: string; type: string; content: string | Buffer }): Promise<Reply>;
  project(overrides?: Record<string, unknown>): Promise<any>;
  testCase(projectId: string, overrides?: Record<string, unknown>): Promise<any>;
}

export interface TestCaseHarness {
  database: Database<TestCaseDatabase>;
  server: TestServer;
  tenant(): Tenant;
  /** Events this service wrote to its outbox, oldest first. */
  events(filter?: { type?: string; key?: string }): Promise<Array<{ event: string; organization_id: string; project_id?: string; data: any }>>;
  close(): Promise<void>;
}

export async function startTestCaseService(): Promise<TestCaseHarness> {
  const testDb: TestDatabase = await createTestDatabase();
  const database = createDatabase<TestCaseDatabase>({ connectionString: testDb.url, schema: 'testcase' });
  await migrateToLatest(database, migrations);
  const server = await listen(buildApp({ db: database.db, schema: 'testcase', logger: createSilentLogger(), internalTokenSecret: TEST_INTERNAL_SECRET }));

  const request = async (principal: Principal, method: string, path: string, init: { body?: string | FormData; type?: string }): Promise<Reply> => {
    const headers: Record<string, string> = { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, principal) };
    if (init.type) headers['content-type'] = init.type;
    const res = await fetch(`${server.url}${path}`, { method, headers, ...(init.body !== undefined ? { body: init.body } : {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };

  return {
    database,
    server,
    tenant() {
      const orgId = randomUUID();
      const principal: Principal = { org_id: orgId, sub: randomUUID(), kind: 'service_key', role: 'admin', scopes: [], plan: 'pro' };
      const call: Tenant['call'] = (method, path, body) =>
        request(principal, method, path, body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body), type: 'application/json' });
      return {
        orgId,
        principal,
        call,
        upload(path, fields, file) {
          const form = new FormData();
          for (const [k, v] of Object.entries(fields)) form.append(k, v);
          if (file) form.append('file', new Blob([file.content], { type: file.type }), file.name);
          return request(principal, 'POST', path, { body: form });
        },
        async project(overrides = {}) {
          const r = await call('POST', '/api/v1/projects', { name: 'Shop', base_url: 'https://shop.example.test', ...overrides });
          if (r.status !== 201) throw new Error(JSON.stringify(r.body));
          return r.body;
        },
        async testCase(projectId, overrides = {}) {
          const r = await call('POST', '/api/v1/test-cases', {
            project_id: projectId,
            name: 'Login works',
            steps: [
              { action: 'navigate', value: '/login' },
              { action: 'fill', selector: '#email', value: 'a@b.test' },
              { action: 'click', selector: 'button[type=submit]' },
            ],
            ...overrides,
          });
          if (r.status !== 201) throw new Error(JSON.stringify(r.body));
          return r.body;
        },
      };
    },
    async events(filter = {}) {
      let q = database.db.selectFrom('outbox').select('envelope').orderBy('seq');
      if (filter.key) q = q.where('key', '=', filter.key);
      const rows = (await q.execute()).map((r) => r.envelope as any);
      return filter.type ? rows.filter((e) => e.event === filter.type) : rows;
    },
    async close() {
      await server.close();
      await database.close();
      await testDb.drop();
    },
  };
}
