/* eslint-disable no-console -- a setup script says what it installs */
// `make healing-setup`: installs both versions of every pair of the healing
// bench (pairs.ts) from the npm registry into tests/healing-panel/.cache,
// pinned; a version already there is kept. Nothing is fetched at bench time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, PAIRS, versionDir, type InstallKind } from './pairs.js';

function install(pkg: string, version: string, kind: InstallKind): void {
  const dir = versionDir(pkg, version, kind);
  if (existsSync(path.join(dir, 'package.json'))) return;
  const base = path.join(CACHE_DIR, `${pkg}@${version}`);
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  console.log(`healing-setup: ${pkg}@${version} (${kind})`);
  if (kind === 'pack') {
    execFileSync('npm', ['pack', `${pkg}@${version}`, '--silent', '--pack-destination', base], { stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(base).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${pkg}@${version} left no tarball in ${base}`);
    execFileSync('tar', ['-xzf', tarball], { cwd: base });
    rmSync(path.join(base, tarball));
  } else {
    execFileSync('npm', ['install', '--prefix', base, `${pkg}@${version}`, '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', '--omit=dev', '--loglevel=error'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (!existsSync(path.join(dir, 'package.json'))) throw new Error(`${pkg}@${version} did not install into ${dir}`);
}

for (const pair of PAIRS) {
  install(pair.package, pair.old, pair.install);
  install(pair.package, pair.new, pair.install);
}
console.log(`healing-setup: ${PAIRS.length} pairs in ${CACHE_DIR}`);
