// Sphinx (Debian's `python3-sphinx`, its `classic` theme: server-built pages, a
// sidebar with a search box, and a search page whose results its own script
// renders from a prebuilt index): a manual of ours, built by Sphinx and served
// as static files.
import path from 'node:path';
import { buildSite } from '../../build.js';
import { PANEL_DIR, serveStatic, type RunningApp } from '../../support.js';

export async function startSphinx(): Promise<RunningApp> {
  const site = await buildSite('sphinx', path.join(PANEL_DIR, 'apps', 'sphinx', 'site'), '/usr/bin/python3', ['-m', 'sphinx', '-q', '-b', 'html', '.', 'out'], 'out');
  return serveStatic({ mounts: { '/': site } });
}
