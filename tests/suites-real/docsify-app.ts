import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * docsify 4.13.1 and its own Playwright tests (tests/suites-real/docsify,
 * copied from its repository at that tag): the app server its tests were
 * written against, from the npm packages, and the suite as uploaded.
 */
const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const VENDORED = path.join(HERE, 'docsify');
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'application/javascript', '.css': 'text/css', '.md': 'text/markdown', '.json': 'application/json', '.map': 'application/json' };
/** docsify's CDN URLs in a page, served from /lib/ instead (its test server's rewrite rule). */
const CDN = /(https?:)?\/\/cdn\.jsdelivr\.net\/npm\/docsify(@\d?\.?\d?\.?\d)?\/lib\//g;

/**
 * The routes of docsify's test server (its test/config/server.js, browser-sync
 * on the repository's checkout): `/_blank.html` empty, `/docs` the
 * documentation site, `/lib` the built docsify (here: the `docsify` package
 * from npm, whose files are that `lib`), `/node_modules/vue2` and `vue3`
 * (its devDependencies, at its lockfile's versions), and the rest from its
 * base directory, the checkout's test/. On loopback.
 */
export async function startDocsifyApp(): Promise<{ url: string; close(): Promise<void> }> {
  const roots: Array<[string, string]> = [
    ['/docs/', path.join(VENDORED, 'docs')],
    ['/lib/', path.join(packageDir('docsify'), 'lib')],
    ['/node_modules/vue2/', packageDir('vue2')],
    ['/node_modules/vue3/', packageDir('vue3')],
    // Its base directory: the checkout's test/ (docsify reads README.md there when a test gives no home page).
    ['/', path.join(VENDORED, 'test')],
  ];
  const server: Server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://app').pathname);
    if (pathname === '/_blank.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('');
    for (const [prefix, root] of roots) {
      if (!pathname.startsWith(prefix)) continue;
      const file = path.join(root, pathname.slice(prefix.length));
      if (!file.startsWith(root + path.sep) || !existsSync(file) || !statSync(file).isFile()) break;
      const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
      const body = type === 'text/html' ? readFileSync(file, 'utf8').replace(CDN, '/lib/') : readFileSync(file);
      return void res.writeHead(200, { 'content-type': type }).end(body);
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Where Node would find `name` from `from` (a package directory): its lookup paths, in order. */
function findPackage(name: string, from: string): string {
  // The lookup paths of any bare name (a package named as a Node built-in, as `process`, has none of its own).
  for (const dir of createRequire(path.join(from, 'package.json')).resolve.paths('a-package') ?? []) {
    const candidate = path.join(dir, name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
  }
  throw new Error(`${name} not found from ${from}`);
}

/** Copies a package and what it depends on into `nodeModules`, flat, as `npm install` would lay them out. */
function copyPackage(name: string, source: string, nodeModules: string, copied: Set<string>): void {
  if (copied.has(name)) return;
  copied.add(name);
  cpSync(source, path.join(nodeModules, name), { recursive: true, dereference: true });
  const pkg = JSON.parse(readFileSync(path.join(source, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const dep of Object.keys(pkg.dependencies ?? {})) copyPackage(dep, findPackage(dep, source), nodeModules, copied);
}

/**
 * The suite as a team would upload it from a checkout of docsify 4.13.1 after
 * `npm install`: its playwright.config.js, test/e2e, test/helpers and its
 * global setup and teardown unchanged, with `node_modules` holding the
 * packages its helpers load (axios, xhr-mock, prettier, common-tags, at its
 * lockfile's versions; installed here under `docsify-e2e-*` aliases). The
 * repository's test server is not part of it: `test/config/server.js` is
 * written to set `TEST_HOST` (the suite's base URL) to the app's URL.
 */
export function buildDocsifySuite(appUrl: string): { dir: string; entries: string[] } {
  const dir = mkdtempSync(path.join(tmpdir(), 'docsify-suite-'));
  cpSync(path.join(VENDORED, 'playwright.config.js'), path.join(dir, 'playwright.config.js'));
  for (const sub of ['test/e2e', 'test/helpers']) cpSync(path.join(VENDORED, sub), path.join(dir, sub), { recursive: true });
  for (const f of ['playwright.setup.js', 'playwright.teardown.js']) cpSync(path.join(VENDORED, 'test/config', f), path.join(dir, 'test/config', f));
  writeFileSync(
    path.join(dir, 'test/config/server.js'),
    `// Written by Assay's suites-real panel in place of docsify's test server (browser-sync on its checkout):\n` +
      `// the app runs outside the suite, at this base URL, which the suite reads from TEST_HOST as that server set it.\n` +
      `const TEST_HOST = ${JSON.stringify(appUrl)};\n` +
      `module.exports = {\n  startAsync: async () => {\n    process.env.TEST_HOST = TEST_HOST;\n  },\n  stop: () => undefined,\n  TEST_HOST,\n};\n`,
  );
  const nodeModules = path.join(dir, 'node_modules');
  mkdirSync(nodeModules);
  const copied = new Set<string>();
  for (const name of ['axios', 'xhr-mock', 'prettier', 'common-tags']) copyPackage(name, packageDir(`docsify-e2e-${name}`), nodeModules, copied);
  return { dir, entries: ['playwright.config.js', 'test', 'node_modules'] };
}
