import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from './launcher.js';

export interface PlaywrightTestRun {
  code: number | null;
  /** Playwright Test's JSON report (null when it wrote none). */
  report: any;
  /** Each spec's title and the status of its first result. */
  outcomes: Record<string, string>;
  /** stdout and stderr, then the report. */
  output: string;
}

/**
 * Runs Playwright Test on `dir` (its playwright.config.ts) with the JSON reporter, as an exported
 * Assay suite is run: a clean environment (PATH, then `env`), extra CLI `args` after the config.
 */
export function runPlaywrightTest(dir: string, opts: { env?: Record<string, string>; args?: string[] } = {}): Promise<PlaywrightTestRun> {
  const cli = path.join(repoRoot(), 'tests', 'node_modules', '@playwright', 'test', 'cli.js');
  const reportFile = path.join(dir, 'report.json');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'test', '--config', path.join(dir, 'playwright.config.ts'), '--reporter=json', ...(opts.args ?? [])], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...opts.env, PLAYWRIGHT_JSON_OUTPUT_NAME: reportFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('exit', async (code) => {
      const report = JSON.parse(await readFile(reportFile, 'utf8').catch(() => 'null'));
      const outcomes: Record<string, string> = {};
      const walk = (suite: any) => {
        for (const s of suite.specs ?? []) outcomes[s.title] = s.tests[0].results[0].status;
        for (const c of suite.suites ?? []) walk(c);
      };
      for (const suite of report?.suites ?? []) walk(suite);
      resolve({ code, report, outcomes, output: output + JSON.stringify(report) });
    });
  });
}
