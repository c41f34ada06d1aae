// MkDocs (Debian's `mkdocs`, its own `mkdocs` theme: Bootstrap and jQuery, a
// search dialog backed by lunr in a web worker): a site of ours, built by
// MkDocs and served as static files. highlight.js is off: the theme loads it
// from a CDN, and the panel reaches nothing beyond loopback.
import path from 'node:path';
import { buildSite } from '../../build.js';
import { PANEL_DIR, serveStatic, type RunningApp } from '../../support.js';

export async function startMkdocs(): Promise<RunningApp> {
  const site = await buildSite('mkdocs', path.join(PANEL_DIR, 'apps', 'mkdocs', 'site'), '/usr/bin/python3', ['-m', 'mkdocs', 'build', '--quiet', '--site-dir', 'out'], 'out');
  return serveStatic({ mounts: { '/': site }, notFound: path.join(site, '404.html') });
}
