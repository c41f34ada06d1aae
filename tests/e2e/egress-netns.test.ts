import { spawn, spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { repoRoot } from './support/launcher.js';

/**
 * Runs tests/netns (the egress policy against metadata, private and rebinding
 * addresses, with the whole stack) inside a private network namespace made
 * here with `unshare --net --mount`, where the forbidden addresses exist only
 * on that namespace's loopback. Needs root (CI and this machine run as root);
 * elsewhere the suite is skipped and says why.
 */
jest.setTimeout(420_000);

function whyNot(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: unshare --net needs root (run make test as root to include it)';
  const probe = spawnSync('unshare', ['--net', '--mount', '--fork', 'true'], { encoding: 'utf8' });
  if (probe.error) return `unshare is not available (${probe.error.message})`;
  if (probe.status !== 0) return `unshare --net --mount failed here: ${probe.stderr.trim()}`;
  return undefined;
}

const reason = whyNot();
if (reason) console.warn(`SKIPPED tests/netns (egress against real forbidden addresses): ${reason}`);
const maybe = reason ? describe.skip : describe;

maybe('the egress suite in a private network namespace', () => {
  it('passes: no trap on a metadata, private or rebinding address is ever reached', async () => {
    const output: string[] = [];
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn('unshare', ['--net', '--mount', '--fork', 'bash', 'tests/netns/run.sh'], {
        cwd: repoRoot(),
        env: { ...process.env, ASSAY_OUTER_NETNS: readlinkSync('/proc/self/ns/net'), TEST_DATABASE_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (c: Buffer) => output.push(c.toString('utf8')));
      child.stderr!.on('data', (c: Buffer) => output.push(c.toString('utf8')));
      child.on('exit', (c) => resolve(c));
    });
    const text = output.join('');
    if (code !== 0) throw new Error(`tests/netns failed (exit ${code}):\n${text}`);
    // The inner jest ran the suite and every test in it.
    // Its summary lines, not the whole output: a warning such as "a worker process has failed to exit
    // gracefully" is no test outcome.
    const tests = /^Tests:\s+(.*)$/m.exec(text)?.[1];
    const suites = /^Test Suites:\s+(.*)$/m.exec(text)?.[1];
    expect({ tests, suites }).toEqual({ tests: expect.stringMatching(/^(\d+) passed, \1 total$/), suites: expect.stringMatching(/^(\d+) passed, \1 total$/) });
  });
});
