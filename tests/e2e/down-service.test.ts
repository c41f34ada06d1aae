import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ASSAY_VERSION } from '@assay/contracts';
import { createTestDatabase, eventually, freePortForTests, TEST_INTERNAL_SECRET, type TestDatabase } from '@assay/testing';
import { bearer, call } from './support/http.js';
import { cleanEnv, repoRoot } from './support/launcher.js';

// A real gateway process whose auth and test-case services are not running:
// nothing listens on the ports it is given.
jest.setTimeout(120_000);

let testDb: TestDatabase;
let gateway: ChildProcess;
let gatewayUrl: string;
const output: string[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
  const [port, deadAuth, deadTestCase] = [await freePortForTests(), await freePortForTests(), await freePortForTests()];
  gatewayUrl = `http://127.0.0.1:${port}`;
  gateway = spawn(process.execPath, ['--import', 'tsx', path.join('services', 'gateway', 'src', 'main.ts')], {
    cwd: repoRoot(),
    env: cleanEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: testDb.url,
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
      AUTH_URL: `http://127.0.0.1:${deadAuth}`,
      TEST_CASE_URL: `http://127.0.0.1:${deadTestCase}`,
      LOG_LEVEL: 'warn',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  gateway.stdout!.on('data', (c: Buffer) => output.push(c.toString('utf8')));
  gateway.stderr!.on('data', (c: Buffer) => output.push(c.toString('utf8')));
  const exited = new Promise<never>((_, reject) => gateway.once('exit', (code) => reject(new Error(`exited with code ${code}`))));
  exited.catch(() => undefined);
  try {
    await Promise.race([eventually(async () => (await fetch(`${gatewayUrl}/healthz`)).ok, 60_000, 200), exited]);
  } catch (err) {
    throw new Error(`The gateway did not start: ${String(err)}\n${output.join('')}`);
  }
});

afterAll(async () => {
  if (gateway && gateway.exitCode === null && gateway.signalCode === null) {
    const exited = new Promise((resolve) => gateway.once('exit', resolve));
    gateway.kill('SIGTERM');
    const timer = setTimeout(() => gateway.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  await testDb?.drop();
});

describe('a gateway whose services are down', () => {
  it('answers 503 service_unavailable JSON within 5 s for every kind of credential', async () => {
    const credentials: Array<Record<string, string>> = [
      bearer('service_sk_prod_3yZe7d1qQKk6r5sV2nX9bWcTgHjA4mPuLfE8oRiN1'),
      bearer('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'),
      { 'x-api-key': 'sk_live_3yZe7d1qQKk6r5sV2nX9bWcTgHjA4mPuLfE8oRiN1' },
    ];
    for (const headers of credentials) {
      const started = Date.now();
      const r = await call(gatewayUrl, 'GET', '/api/service-keys', { headers });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(r.status).toBe(503);
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
      expect(r.body).toMatchObject({ error: 'service_unavailable', message: expect.stringMatching(/auth service is unavailable/) });
    }
    // A call bound for the (also dead) test-case service stops at authentication the same way.
    const testCases = await call(gatewayUrl, 'GET', '/api/v1/test-cases?project_id=p', { headers: credentials[0] });
    expect(testCases.status).toBe(503);
    expect(testCases.body.error).toBe('service_unavailable');
  });

  it('still asks for a credential with 401 and reports itself alive on /healthz', async () => {
    const anonymous = await call(gatewayUrl, 'GET', '/api/service-keys');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('invalid_api_key');

    const health = await call(gatewayUrl, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', service: 'gateway', version: ASSAY_VERSION });
    expect(gateway.exitCode).toBeNull();
  });
});
