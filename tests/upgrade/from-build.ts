import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The FROM release's sources with their node modules: `git archive` of the commit into
 * $TMPDIR/assay-upgrade/from-<commit> and `pnpm install --frozen-lockfile` there from the
 * store (no lifecycle scripts: the FROM services need no native build; the mock Kafka
 * cluster and Postgres come from this repository). Kept for the next drill of the same commit.
 */
export function prepareFrom(repo: string, commit: string, say: (line: string) => void): string {
  const dir = path.join(process.env.UPGRADE_DRILL_DIR ?? path.join(tmpdir(), 'assay-upgrade'), `from-${commit.slice(0, 12)}`);
  const stamp = path.join(dir, '.drill-ready');
  if (existsSync(stamp)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const archive = execFileSync('git', ['archive', commit], { cwd: repo, maxBuffer: 1024 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive, maxBuffer: 1024 * 1024 * 1024 });
  const install = spawnSync('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--ignore-scripts', '--reporter=silent'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`pnpm install of ${commit} failed:\n${install.stdout}\n${install.stderr}`);
  writeFileSync(stamp, `${commit}\n`);
  say(`FROM ${commit.slice(0, 7)}: sources and node modules in ${dir} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  return dir;
}
