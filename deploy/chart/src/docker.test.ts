import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './helm.js';
import { checkDockerfile, isPinned } from './dockerfile-check.js';

// No Docker engine here: what can be checked in docker/ without one.
const run = promisify(execFile);
const dockerfile = readFileSync(path.join(REPO_ROOT, 'docker/Dockerfile'), 'utf8');

describe('docker/Dockerfile', () => {
  it('pins its base image, runs as a non-root user, adds nothing remote and bakes in no secret', () => {
    expect(checkDockerfile(dockerfile)).toEqual([]);
  });

  it('ships Debian chromium-headless-shell in the browser image, at the path the chart gives the services', () => {
    expect(dockerfile).toMatch(/apt-get install -y --no-install-recommends chromium-headless-shell /);
    expect(dockerfile).not.toMatch(/install[^\n]*\schromium\s/);
    expect(dockerfile).toMatch(/CHROMIUM_PATH=\/usr\/bin\/chromium-headless-shell/);
    const helpers = readFileSync(path.join(REPO_ROOT, 'helm/assay/templates/_helpers.tpl'), 'utf8');
    expect(helpers).toContain('"CHROMIUM_PATH" "/usr/bin/chromium-headless-shell"');
  });

  it('keeps local secrets and state out of the build context', () => {
    const ignore = readFileSync(path.join(REPO_ROOT, 'docker/Dockerfile.dockerignore'), 'utf8').split('\n');
    expect(ignore).toEqual(expect.arrayContaining(['**/.env', '**/.env.*', '.assay', '**/node_modules', '.git']));
  });

  it('finds what it is meant to find in a bad Dockerfile', () => {
    const bad = [
      'ARG BASE=node:20-slim',
      'FROM ${BASE} AS build',
      'FROM node:latest',
      'ENV NODE_ENV=production API_TOKEN=abc123',
      'ARG DB_PASSWORD=hunter2',
      'ADD https://example.com/tool.tar.gz /opt/',
      'COPY .env /app/.env',
      'USER root',
    ].join('\n');
    expect(checkDockerfile(bad)).toEqual([
      'line 2: FROM node:20-slim is not pinned (use an exact version tag or a digest)',
      'line 3: FROM node:latest is not pinned (use an exact version tag or a digest)',
      'line 4: ENV API_TOKEN puts a secret into the image (pass it at run time)',
      'line 5: ARG DB_PASSWORD puts a secret into the image (pass it at run time)',
      'line 6: ADD of a remote URL (fetch it in a RUN with a checksum, or COPY it)',
      'line 7: COPY of a secrets file',
      'line 8: USER root runs as root',
    ]);
    expect(checkDockerfile('FROM node:20.20.2-slim\nRUN true')).toEqual(['the final stage has no USER: it would run as root']);
    // A USER of an earlier stage does not carry over.
    expect(checkDockerfile('FROM node:20.20.2-slim AS a\nUSER 1000\nFROM a\nRUN true')).toEqual(['the final stage has no USER: it would run as root']);
  });

  it.each([
    ['node:20.20.2-bookworm-slim', true],
    ['node@sha256:' + 'a'.repeat(64), true],
    ['node:20-bookworm-slim', false],
    ['node:lts', false],
    ['node', false],
  ])('calls %s pinned: %s', (image, pinned) => {
    expect(isPinned(image)).toBe(pinned);
  });
});

describe('docker/entrypoint.sh', () => {
  const entrypoint = path.join(REPO_ROOT, 'docker/entrypoint.sh');
  const runEntrypoint = (args: string[], env: Record<string, string> = {}) =>
    run('sh', [entrypoint, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ASSAY_APP_DIR: REPO_ROOT, ...env } }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('refuses an unknown service with the list of those in the image', async () => {
    const out = await runEntrypoint(['scheduler']);
    expect(out.code).toBe(64);
    expect(out.stderr).toContain("unknown service 'scheduler'");
    for (const s of ['gateway', 'auth', 'test-case', 'execution-runner', 'discovery-crawler', 'analysis', 'webhook-dispatcher']) expect(out.stderr).toContain(`  ${s}\n`);
  });

  it('refuses `migrate` for the gateway, which has no schema', async () => {
    const out = await runEntrypoint(['gateway', 'migrate']);
    expect(out.code).toBe(64);
    expect(out.stderr).toContain('gateway has no database schema to migrate');
  });

  it('has a migrate entry for every service the chart migration Job names', async () => {
    const job = readFileSync(path.join(REPO_ROOT, 'helm/assay/templates/migrations-job.yaml'), 'utf8');
    expect(job).toContain('"args" (list $name "migrate")');
    for (const s of ['auth', 'test-case', 'execution-runner', 'discovery-crawler', 'analysis', 'webhook-dispatcher']) {
      expect(readFileSync(path.join(REPO_ROOT, 'services', s, 'src/migrate.ts'), 'utf8')).toContain('runMigrations');
    }
  });
});
