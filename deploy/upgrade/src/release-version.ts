import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MCP_TS, REPO_ROOT, VERSION_TS, disagreements, packageJsonFiles, versionSites } from './versions.js';

/**
 * `make release-version V=x.y.z`: writes the version into every place that
 * carries it (versions.ts lists them) and checks they then agree. Image tags in
 * values.yaml stay empty (the chart's appVersion).
 */
const version = process.argv[2] ?? '';
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
  process.stderr.write(`release-version: give a version x.y.z (got "${version}")\n`);
  process.exit(2);
}
const edit = (file: string, fn: (text: string) => string) => {
  const p = path.join(REPO_ROOT, file);
  writeFileSync(p, fn(readFileSync(p, 'utf8')));
};
for (const file of packageJsonFiles()) edit(file, (t) => t.replace(/^( {2}"version": )"[^"]*"/m, `$1"${version}"`));
edit('helm/assay/Chart.yaml', (t) => t.replace(/^version: .*$/m, `version: ${version}`).replace(/^appVersion: .*$/m, `appVersion: "${version}"`));
edit(VERSION_TS, (t) => t.replace(/ASSAY_VERSION = '[^']*'/, `ASSAY_VERSION = '${version}'`));
edit(MCP_TS, (t) => t.replace(/MCP_SERVER_VERSION = '[^']*'/, `MCP_SERVER_VERSION = '${version}'`));
const left = disagreements(version, versionSites());
if (left.length) {
  process.stderr.write(`release-version: still not ${version}:\n${left.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`release-version: ${version} in ${versionSites().length} places\n`);
