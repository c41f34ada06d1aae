// DokuWiki (Debian's `dokuwiki`, PHP, server-rendered), run by PHP's built-in
// server on loopback over a throw-away configuration and data folder of ours:
// the Debian code stays as installed, a prepended file points it at our
// folders. Reading is open to all, editing needs signing in (as on many public
// wikis); one user; update checks off.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '@assay/embedded-pg';
import { PANEL_DIR, startProcess, type RunningApp } from '../../support.js';

const CODE = '/usr/share/dokuwiki';
const PAGES = path.join(PANEL_DIR, 'apps', 'dokuwiki', 'pages');
export const DOKUWIKI_USER = 'editor';
export const DOKUWIKI_PASSWORD = 'wiki-panel-1';

export async function startDokuwiki(): Promise<RunningApp> {
  const dir = await mkdtemp(path.join('/tmp', 'assay-panel-dokuwiki-'));
  const conf = path.join(dir, 'conf');
  const data = path.join(dir, 'data');
  await cp('/etc/dokuwiki', conf, { recursive: true, dereference: true });
  await cp('/var/lib/dokuwiki/data', data, { recursive: true });
  for (const sub of ['pages', 'meta', 'attic', 'media', 'media_meta', 'media_attic', 'cache', 'index', 'locks', 'tmp', 'log']) await mkdir(path.join(data, sub), { recursive: true });
  await cp(PAGES, path.join(data, 'pages'), { recursive: true });
  const local = [
    '<?php',
    "$conf['title'] = 'Team Handbook';",
    `$conf['savedir'] = '${data}';`,
    "$conf['useacl'] = 1;",
    "$conf['superuser'] = '@admin';",
    "$conf['updatecheck'] = 0;",
    "$conf['license'] = '';",
    "$conf['breadcrumbs'] = 5;",
    '',
  ];
  await writeFile(path.join(conf, 'local.php'), local.join('\n'));
  await writeFile(path.join(conf, 'acl.auth.php'), '*\t@ALL\t1\n*\t@user\t8\n');
  const hash = execFileSync('php', ['-r', `echo password_hash('${DOKUWIKI_PASSWORD}', PASSWORD_BCRYPT);`]).toString().trim();
  await writeFile(path.join(conf, 'users.auth.php'), `${DOKUWIKI_USER}:${hash}:Panel Editor:editor@example.com:admin,user\n`);
  const prepend = path.join(dir, 'prepend.php');
  await writeFile(prepend, `<?php if (!defined('DOKU_CONF')) define('DOKU_CONF', '${conf}/');\n`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return startProcess('php', ['-d', `auto_prepend_file=${prepend}`, '-S', `127.0.0.1:${port}`, '-t', CODE], url, {
    probe: '/doku.php',
    cleanup: () => rm(dir, { recursive: true, force: true }),
  });
}
