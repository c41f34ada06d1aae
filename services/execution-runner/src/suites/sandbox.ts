import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { chown, lchown, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { EgressProxy, type EgressPolicy } from '@assay/egress';
import type { Logger } from '@assay/logger';
import type { ArchiveFile } from './archive.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The box's first process and the reporter Playwright loads: plain JavaScript beside the sources. */
export const BOX_LAUNCHER = path.resolve(HERE, '../../box/launcher.mjs');
export const BOX_REPORTER = path.resolve(HERE, '../../box/reporter.mjs');
const require = createRequire(import.meta.url);
/** The @playwright/test the runner ships (its package directory); suites run it whatever they bring. */
export const PLAYWRIGHT_TEST_DIR = path.dirname(require.resolve('@playwright/test/package.json'));
export const PLAYWRIGHT_VERSION: string = (require('@playwright/test/package.json') as { version: string }).version;
const PLAYWRIGHT_CLI = path.join(PLAYWRIGHT_TEST_DIR, 'cli.js');
/** 127.0.0.1:<port> inside a box is the egress proxy. */
const BOX_PROXY_PORT = 1080;

/** What a box may use (SUITE_* settings). */
export interface BoxLimits {
  cpuSeconds: number;
  /** RLIMIT_AS. Chromium's V8 reserves about a terabyte of address space at start, so this bounds runaway mappings only. */
  addressSpaceBytes: number;
  fileSizeBytes: number;
  processes: number;
  shmBytes: number;
  /** stdout and stderr kept, and reporter events read, per box. */
  outputBytes: number;
}

export interface BoxSettings {
  /** Directory under which each box gets its own (SUITE_WORK_DIR). */
  workDir: string;
  chromiumPath: string;
  /** Each box's uid is drawn from [min, max) (SUITE_UID_MIN, SUITE_UID_MAX). */
  uidRange: [number, number];
  limits: BoxLimits;
}

/** One event of the injected reporter (box/reporter.mjs). */
export type ReporterEvent = { type: string } & Record<string, unknown>;

export interface BoxRun {
  /** The Playwright Test arguments after `test` (the config is given here). */
  args: string[];
  /** The run's wall-clock bound. */
  timeoutMs: number;
  onEvent: (e: ReporterEvent) => void;
  /** Resolves to stop the box early (a cancel). */
  stop?: Promise<unknown>;
}

export interface BoxOutcome {
  exitCode: number | null;
  timedOut: boolean;
  stopped: boolean;
  /** stdout and stderr, interleaved, up to the output cap. */
  output: string;
  outputTruncated: boolean;
}

/** The refusal of a box that cannot be made on this runner. */
export class BoxUnavailableError extends Error {}

/**
 * A directory of tenant code (a suite version unpacked) that runs in a box:
 * its own namespaces (network: loopback only, its only way out the egress
 * proxy through a unix socket; mounts: everything read-only but its own
 * directory; pids: it sees its own processes only), an unprivileged uid of
 * its own, rlimits, a clean environment, a wall-clock bound and an output
 * cap. Made by root (or CAP_SYS_ADMIN with CAP_SETUID); see the suites docs.
 */
export class SuiteBox {
  readonly dir: string;
  readonly uid: number;
  private constructor(
    private readonly settings: BoxSettings,
    private readonly policy: EgressPolicy,
    private readonly logger: Logger,
    readonly id: string,
  ) {
    this.dir = path.join(settings.workDir, id);
    // A uid of its own per box: no other box, nor the runner, owns anything it could then read.
    this.uid = randomInt(settings.uidRange[0], settings.uidRange[1]);
  }

  /**
   * Unpacks `files` into a new box directory owned by the box's uid, with the
   * runner's @playwright/test linked in as `node_modules/@playwright/test`.
   * @throws BoxUnavailableError when this process cannot make boxes (not root).
   */
  static async create(settings: BoxSettings, policy: EgressPolicy, logger: Logger, files: ArchiveFile[]): Promise<SuiteBox> {
    if (process.getuid?.() !== 0) throw new BoxUnavailableError('this runner is not root, so it cannot make the box suites run in (namespaces and a uid of their own): suites run only on runners that can');
    const box = new SuiteBox(settings, policy, logger, `box-${randomBytes(8).toString('hex')}`);
    await mkdir(settings.workDir, { recursive: true, mode: 0o711 });
    await mkdir(box.dir, { mode: 0o700 });
    for (const f of files) {
      const target = path.join(box.dir, f.path);
      if (!target.startsWith(box.dir + path.sep)) continue;
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, f.data, { mode: 0o644 });
    }
    // The runner's Playwright, whatever version the archive brought.
    const scope = path.join(box.dir, 'node_modules', '@playwright');
    await mkdir(scope, { recursive: true });
    await rm(path.join(scope, 'test'), { recursive: true, force: true });
    await symlink(PLAYWRIGHT_TEST_DIR, path.join(scope, 'test'));
    for (const name of ['playwright', 'playwright-core']) await rm(path.join(box.dir, 'node_modules', name), { recursive: true, force: true });
    await mkdir(path.join(box.dir, '.tmp'));
    await chownTree(box.dir, box.uid);
    return box;
  }

  /** Writes a file into the box (the generated config, a test list) as the box's. */
  async write(name: string, text: string): Promise<string> {
    const file = path.join(this.dir, name);
    await writeFile(file, text, { mode: 0o644 });
    await chown(file, this.uid, this.uid);
    return file;
  }

  /** Runs Playwright Test in the box; resolves when the box is gone (every process of it ended). */
  async run(r: BoxRun): Promise<BoxOutcome> {
    const proxy = await EgressProxy.start(this.policy, { logger: this.logger, label: `suite ${this.id}` });
    const socketPath = `${this.dir}.sock`;
    const bridge = net.createServer((c) => {
      const u = net.connect(Number(new URL(proxy.url).port), '127.0.0.1');
      c.pipe(u).pipe(c);
      c.on('error', () => u.destroy());
      u.on('error', () => c.destroy());
    });
    await new Promise<void>((resolve, reject) => bridge.once('error', reject).listen(socketPath, resolve));
    try {
      return await this.spawnBox(r, socketPath);
    } finally {
      bridge.close();
      await rm(socketPath, { force: true });
      await proxy.close();
    }
  }

  private spawnBox(r: BoxRun, socketPath: string): Promise<BoxOutcome> {
    const { limits } = this.settings;
    const env = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: this.dir,
      TMPDIR: path.join(this.dir, '.tmp'),
      CI: '1',
      NODE_ENV: 'test',
      FORCE_COLOR: '0',
      PLAYWRIGHT_SKIP_BROWSER_GC: '1',
    };
    const config = {
      dir: this.dir,
      uid: this.uid,
      gid: this.uid,
      socket: socketPath,
      proxyPort: BOX_PROXY_PORT,
      limits,
      env,
      command: [process.execPath, PLAYWRIGHT_CLI, 'test', ...r.args],
    };
    // The box dies with this process, however it ends (SIGKILL included): the kernel sends `unshare` SIGKILL
    // when its parent (this process) is gone (setpriv --pdeathsig), and unshare's --kill-child then kills the
    // launcher, pid 1 of the box, which takes every process of the box with it. The launcher also ends when its
    // stdin, a pipe whose other end only this process holds, closes: the same death seen from inside the box,
    // with no window between the fork and the prctl.
    const child = spawn(
      'setpriv',
      ['--pdeathsig', 'KILL', '--', 'unshare', '--net', '--mount', '--pid', '--fork', '--mount-proc', '--kill-child', process.execPath, BOX_LAUNCHER, Buffer.from(JSON.stringify(config)).toString('base64')],
      {
        env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' },
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      },
    );
    // Nothing is written to it: it is the runner's lifeline, closed by the kernel when the runner ends.
    child.stdin!.on('error', () => undefined);
    let output = '';
    let truncated = false;
    let eventBytes = 0;
    let timedOut = false;
    let stopped = false;
    const keep = (chunk: Buffer) => {
      if (output.length + chunk.length > limits.outputBytes) truncated = true;
      if (output.length < limits.outputBytes) output += chunk.toString('utf8').slice(0, limits.outputBytes - output.length);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    let pending = '';
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      eventBytes += chunk.length;
      // Past the cap the box is stopped: its events no longer count.
      if (eventBytes > limits.outputBytes * 4) return void child.kill('SIGKILL');
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) !== -1) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        try {
          const e = JSON.parse(line) as ReporterEvent;
          if (e && typeof e.type === 'string') r.onEvent(e);
        } catch {
          // Not an event of ours: ignored.
        }
      }
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, r.timeoutMs);
    void r.stop?.then(() => {
      stopped = true;
      child.kill('SIGKILL');
    });
    return new Promise((resolve) => {
      child.on('close', (code) => {
        clearTimeout(timer);
        child.stdin!.destroy();
        resolve({ exitCode: code, timedOut, stopped, output, outputTruncated: truncated });
      });
    });
  }

  async destroy(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true }).catch((err) => this.logger.warn({ err, box: this.id }, 'could not remove a suite box directory'));
  }
}

async function chownTree(dir: string, uid: number): Promise<void> {
  await chown(dir, uid, uid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) await lchown(p, uid, uid);
    else if (entry.isDirectory()) await chownTree(p, uid);
    else await chown(p, uid, uid);
  }
}
