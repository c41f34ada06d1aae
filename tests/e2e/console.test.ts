import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { bearer, call } from './support/http.js';
import { launchForFile, repoRoot } from './support/launcher.js';
import { login, provisionOrganization } from './support/organizations.js';

// The web console in a real browser: the launcher starts Assay as `make run`
// does, and Playwright Test (tests/console, on Debian's Chromium headless
// shell) drives the console it serves. The browser tests are one Playwright
// run; this file starts the stack, provisions a second organization for the
// switch, and fails with Playwright's report when any browser test fails.
jest.setTimeout(900_000);

// Seven processes start slowly beside other test runs: each may take longer than the launcher's default minute.
const launched = launchForFile({ env: { RATE_LIMITS_ENABLED: 'false' } });

describe('the web console', () => {
  it('passes its browser tests (tests/console) against the launched stack', async () => {
    const { assay } = launched;
    // A second organization the admin is a member of, for the organization switch.
    const other = await provisionOrganization(assay, 'Second Org');
    const token = await login(assay, other.email, other.password);
    const added = await call(assay.gatewayUrl, 'POST', '/api/organizations/current/members', { headers: bearer(token), body: { email: assay.adminEmail, role: 'admin' } });
    expect(added.status).toBe(201);

    // The secret tests/console/qa.spec.ts stores and runs with: no service may ever log it.
    const secretToken = `tok-${randomBytes(9).toString('base64url')}-vault`;
    const root = repoRoot();
    const cli = path.join(root, 'tests', 'node_modules', '@playwright', 'test', 'cli.js');
    const output: string[] = [];
    // Playwright refuses to run inside a jest worker (it looks for JEST_WORKER_ID): the child is not one.
    const { JEST_WORKER_ID: _worker, ...env } = process.env;
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [cli, 'test', '-c', path.join('console', 'playwright.config.ts')], {
        cwd: path.join(root, 'tests'),
        env: {
          ...env,
          ASSAY_GATEWAY_URL: assay.gatewayUrl,
          ASSAY_ADMIN_EMAIL: assay.adminEmail,
          ASSAY_ADMIN_PASSWORD: assay.adminPassword,
          CONSOLE_SECOND_ORGANIZATION: 'Second Org',
          CONSOLE_SECRET_TOKEN: secretToken,
          CI: '1',
          FORCE_COLOR: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (c: Buffer) => output.push(c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => output.push(c.toString('utf8')));
      child.on('error', reject);
      child.on('exit', (c) => resolve(c));
    });
    const report = output.join('');
    if (code !== 0) console.error(report);
    // Every browser test ran and passed: none failed, was skipped, flaky or left out.
    expect({ code, failed: /(\d+) (failed|skipped|flaky|did not run)/.exec(report)?.[0] ?? 'none', passed: Number(/(\d+) passed/.exec(report)?.[1] ?? 0) >= 23 }).toEqual({ code: 0, failed: 'none', passed: true });
    // The run typed and searched for the secret; no line of any service's log shows it.
    const logs = assay.output();
    expect(logs.length).toBeGreaterThan(0);
    expect([secretToken, encodeURIComponent(secretToken)].filter((v) => logs.includes(v))).toEqual([]);
  });
});
