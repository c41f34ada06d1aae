// VitePress (npm `vitepress`, Vue): a documentation site of ours with a top
// navigation bar, a sidebar and VitePress's own local search dialog, built by
// VitePress and served as static files (clean URLs: `/guide/intro` answers
// `/guide/intro.html`, as VitePress's own preview server does).
import path from 'node:path';
import { buildSite } from '../../build.js';
import { PANEL_DIR, packageDir, serveStatic, type RunningApp } from '../../support.js';

export async function startVitepress(): Promise<RunningApp> {
  const bin = path.join(packageDir('vitepress'), 'bin', 'vitepress.js');
  const site = await buildSite('vitepress', path.join(PANEL_DIR, 'apps', 'vitepress', 'site'), process.execPath, [bin, 'build', '.', '--outDir', 'out'], 'out');
  return serveStatic({ mounts: { '/': site }, notFound: path.join(site, '404.html') });
}
