import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ASSAY_VERSION } from '@assay/contracts';
import { REPO_ROOT, disagreements, versionSites } from './versions.js';

describe('one version everywhere', () => {
  const sites = versionSites();

  it('reads the chart, the image tags, every package.json, ASSAY_VERSION and the MCP server', () => {
    const files = new Set(sites.map((s) => s.file));
    for (const f of ['package.json', 'helm/assay/Chart.yaml', 'helm/assay/values.yaml', 'libs/contracts/src/version.ts', 'libs/mcp/src/server.ts', 'services/gateway/package.json', 'services/analysis/package.json']) expect(files).toContain(f);
    expect(sites.filter((s) => s.file.startsWith('services/')).length).toBe(7);
  });

  it('agrees with ASSAY_VERSION (what GET /healthz answers) in every place', () => {
    expect(disagreements(ASSAY_VERSION, sites)).toEqual([]);
  });

  it('names a place that disagrees', () => {
    const bumped = sites.map((s) => (s.file === 'helm/assay/Chart.yaml' && s.what === 'appVersion' ? { ...s, value: '9.9.9' } : s));
    expect(disagreements(ASSAY_VERSION, bumped)).toEqual([`helm/assay/Chart.yaml appVersion is "9.9.9", not ${ASSAY_VERSION}`]);
  });

  it('is the version of the newest release in CHANGELOG.md (released or not)', () => {
    const changelog = readFileSync(path.join(REPO_ROOT, 'CHANGELOG.md'), 'utf8');
    const first = /^## \[?(\d+\.\d+\.\d+)\]?/m.exec(changelog)?.[1];
    expect(first).toBe(ASSAY_VERSION);
  });
});
