import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundledServiceArgs, PLAYWRIGHT_SERVICES } from './bundle.js';

describe('the node arguments of a bundled service', () => {
  let outDir: string;
  const saved = process.env.ASSAY_SOURCE_MAPS;
  beforeAll(() => {
    outDir = mkdtempSync(path.join(tmpdir(), 'assay-bundle-'));
    for (const s of ['execution-runner', 'discovery-crawler', 'auth', 'gateway']) {
      mkdirSync(path.join(outDir, 'services', s), { recursive: true });
      writeFileSync(path.join(outDir, 'services', s, 'main.mjs'), '');
    }
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));
  afterEach(() => (saved === undefined ? delete process.env.ASSAY_SOURCE_MAPS : (process.env.ASSAY_SOURCE_MAPS = saved)));

  it('maps stack traces to the sources, except in the services that run Playwright', () => {
    delete process.env.ASSAY_SOURCE_MAPS;
    expect([...PLAYWRIGHT_SERVICES].sort()).toEqual(['discovery-crawler', 'execution-runner']);
    for (const s of ['auth', 'gateway']) expect(bundledServiceArgs(outDir, s)).toContain('--enable-source-maps');
    for (const s of PLAYWRIGHT_SERVICES) {
      const args = bundledServiceArgs(outDir, s)!;
      expect(args).not.toContain('--enable-source-maps');
      // The tracing preload still comes first, then the entry.
      expect(args.slice(-3)).toEqual(['--import', expect.stringMatching(/register\.mjs$/), path.join(outDir, 'services', s, 'main.mjs')]);
    }
  });

  it('maps them in every service with ASSAY_SOURCE_MAPS=all', () => {
    process.env.ASSAY_SOURCE_MAPS = 'all';
    for (const s of ['execution-runner', 'discovery-crawler', 'auth']) expect(bundledServiceArgs(outDir, s)?.[0]).toBe('--enable-source-maps');
  });

  it('answers undefined without a build', () => {
    expect(bundledServiceArgs(outDir, 'test-case')).toBeUndefined();
  });
});
