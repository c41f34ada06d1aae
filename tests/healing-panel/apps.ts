// Starts one version of a pair's app on loopback, and the switch the bench
// points Assay at: one fixed address whose requests go to the old version,
// then, once switched, to the new one (as a deployment upgrades an app in
// place). Our own content only (the OpenAPI description and its API, a
// folder of files, a JSON database, a QUnit test file); nothing reaches
// beyond 127.0.0.1.
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@assay/embedded-pg';
import { handleBookshop } from '../discovery-panel/openapi.js';
import { serveStatic, startProcess, type RunningApp } from '../discovery-panel/support.js';
import { HEALING_DIR, versionDir, type Pair } from './pairs.js';

const CONTENT = path.join(HEALING_DIR, 'content');
const html = (res: http.ServerResponse, body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
const pathOf = (req: http.IncomingMessage) => (req.url ?? '/').split('?')[0];

/** The book description TinyMCE edits (HTML, escaped for the textarea). */
const TINYMCE_CONTENT = '&lt;h2&gt;Dune&lt;/h2&gt;&lt;p&gt;A novel by Frank Herbert, first published in 1965: the desert planet Arrakis and its spice.&lt;/p&gt;&lt;ul&gt;&lt;li&gt;Hardcover, 412 pages&lt;/li&gt;&lt;li&gt;Paperback, 604 pages&lt;/li&gt;&lt;/ul&gt;';

/** What the graphiql pair's server uses of the graphql package installed beside each version (not a dependency of ours). */
interface GraphQLPackage {
  buildSchema(sdl: string): unknown;
  graphql(args: { schema: unknown; source: string; rootValue: unknown; variableValues?: Record<string, unknown>; operationName?: string }): Promise<unknown>;
}

/** The jsoneditor examples both versions ship that load nothing from outside. */
export const JSONEDITOR_EXAMPLES = ['01_basic_usage', '02_viewer', '03_switch_mode', '05_custom_fields_editable', '06_custom_styling', '09_readonly_text_mode', '10_templates'];

export async function startVersion(pair: Pair, version: string): Promise<RunningApp> {
  const dir = versionDir(pair.package, version, pair.install);
  switch (pair.name) {
    case 'swagger-ui': {
      // Our page with Swagger UI's own initializer (as in its index.html), the online validator off.
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Swagger UI</title><link rel="stylesheet" href="/swagger-ui.css"><link rel="icon" href="data:,"></head>
<body><div id="swagger-ui"></div><script src="/swagger-ui-bundle.js"></script><script src="/swagger-ui-standalone-preset.js"></script>
<script>window.onload = function () { window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], plugins: [SwaggerUIBundle.plugins.DownloadUrl], layout: 'StandaloneLayout' }); };</script></body></html>`;
      return serveStatic({ mounts: { '/': dir }, handle: async (req, res) => (pathOf(req) === '/' ? (html(res, page), true) : handleBookshop(req, res)) });
    }
    case 'redoc': {
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bookshop API reference</title><link rel="icon" href="data:,"></head>
<body><redoc spec-url="/openapi.json"></redoc><script src="/redoc/redoc.standalone.js"></script></body></html>`;
      return serveStatic({ mounts: { '/redoc': path.join(dir, 'bundles') }, handle: async (req, res) => (pathOf(req) === '/' ? (html(res, page), true) : handleBookshop(req, res)) });
    }
    case 'jsoneditor': {
      const links = JSONEDITOR_EXAMPLES.map((e) => `<li><a href="/examples/${e}.html">${e.slice(3).replace(/_/g, ' ')}</a></li>`).join('');
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>JSON editor examples</title><link rel="icon" href="data:,"></head>
<body><h1>JSON editor examples</h1><ul>${links}</ul></body></html>`;
      return serveStatic({ mounts: { '/examples': path.join(dir, 'examples'), '/dist': path.join(dir, 'dist') }, handle: async (req, res) => (pathOf(req) === '/' ? (html(res, page), true) : false) });
    }
    case 'qunit': {
      // QUnit's HTML runner on a page of ours running the Bookshop's own tests.
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bookshop tests</title><link rel="stylesheet" href="/qunit/qunit.css"><link rel="icon" href="data:,"></head>
<body><div id="qunit"></div><div id="qunit-fixture"></div><script src="/qunit/qunit.js"></script><script src="/tests.js"></script></body></html>`;
      return serveStatic({ mounts: { '/qunit': path.join(dir, 'qunit'), '/tests.js': path.join(CONTENT, 'qunit-tests.js') }, handle: async (req, res) => (pathOf(req) === '/' ? (html(res, page), true) : false) });
    }
    case 'jasmine': {
      // Jasmine's standalone spec runner on a page of ours running the Bookshop's specs (one boot.js in old versions, boot0 and boot1 since).
      const lib = path.join(dir, 'lib', 'jasmine-core');
      const boot = existsSync(path.join(lib, 'boot.js')) ? '<script src="/jasmine/boot.js"></script>' : '<script src="/jasmine/boot0.js"></script><script src="/jasmine/boot1.js"></script>';
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bookshop specs</title><link rel="stylesheet" href="/jasmine/jasmine.css"><link rel="icon" href="data:,">
<script src="/jasmine/jasmine.js"></script><script src="/jasmine/jasmine-html.js"></script>${boot}<script src="/specs.js"></script></head><body></body></html>`;
      return serveStatic({ mounts: { '/jasmine': lib, '/specs.js': path.join(CONTENT, 'jasmine-specs.js') }, handle: async (req, res) => (pathOf(req) === '/' ? (html(res, page), true) : false) });
    }
    case 'tinymce': {
      // TinyMCE, self-hosted, on a page of ours editing a book's description (its plugins in both versions; no cloud, no links out).
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bookshop: edit a description</title><link rel="icon" href="data:,"></head>
<body><h1>Edit the description of Dune</h1><form onsubmit="return false"><textarea id="description" name="description">${TINYMCE_CONTENT}</textarea></form>
<script src="/tinymce/tinymce.min.js"></script>
<script>tinymce.init({ selector: '#description', height: 420, branding: false, promotion: false, plugins: 'link lists code table searchreplace wordcount help',
  toolbar: 'undo redo | bold italic | bullist numlist | link table | code' });</script></body></html>`;
      return serveStatic({ mounts: { '/tinymce': dir }, handle: async (req, res) => (pathOf(req) === '/' ? (html(res, page), true) : false) });
    }
    case 'docsify': {
      // Docsify on a page of ours serving the Bookshop's docs (Markdown, with a sidebar, a navbar and the search plugin); its files in lib/ before 5, in dist/ since (the vue theme an add-on to the core one).
      const v5 = existsSync(path.join(dir, 'dist', 'docsify.min.js'));
      const lib = path.join(dir, v5 ? 'dist' : 'lib');
      const css = v5 ? '<link rel="stylesheet" href="/docsify/themes/core.min.css"><link rel="stylesheet" href="/docsify/themes/addons/vue.min.css">' : '<link rel="stylesheet" href="/docsify/themes/vue.css">';
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bookshop docs</title><meta name="viewport" content="width=device-width, initial-scale=1">${css}<link rel="icon" href="data:,"></head>
<body><div id="app"></div>
<script>window.$docsify = { name: 'Bookshop', basePath: '/docs/', loadSidebar: true, loadNavbar: true, subMaxLevel: 2, auto2top: true, search: { placeholder: 'Search', noData: 'No results' } };</script>
<script src="/docsify/docsify.min.js"></script><script src="/docsify/plugins/search.min.js"></script></body></html>`;
      return serveStatic({ mounts: { '/docsify': lib, '/docs': path.join(CONTENT, 'docsify') }, handle: async (req, res) => (pathOf(req) === '/' ? (html(res, page), true) : false) });
    }
    case 'tabulator': {
      // Tabulator on pages of ours: the Bookshop's catalogue (filters in the headers, sorting, pages, an editable stock) and its books grouped by author (groups closed, a menu in each header); local pagination is 'local' before 5, true since.
      const v4 = existsSync(path.join(dir, 'dist', 'js', 'tabulator_core.js'));
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bookshop catalogue</title><link rel="stylesheet" href="/tabulator/css/tabulator.min.css"><link rel="icon" href="data:,"></head>
<body><nav><a href="/">Catalogue</a> <a href="/authors">Books by author</a></nav><h1>Catalogue</h1><p><button type="button" id="add">Add book</button> <button type="button" id="clear">Clear filters</button></p><div id="books"></div>
<script src="/tabulator/js/tabulator.min.js"></script><script>window.PAGINATION = ${v4 ? "'local'" : 'true'};</script><script src="/books.js"></script></body></html>`;
      const authors = page.replace('<title>Bookshop catalogue</title>', '<title>Bookshop: books by author</title>').replace(/<h1>Catalogue<\/h1>.*<div id="books"><\/div>/, '<h1>Books by author</h1><div id="authors"></div>');
      const pages: Record<string, string> = { '/': page, '/authors': authors };
      return serveStatic({ mounts: { '/tabulator': path.join(dir, 'dist'), '/books.js': path.join(CONTENT, 'tabulator-books.js') }, handle: async (req, res) => {
        const body = pages[pathOf(req) ?? ''];
        return body ? (html(res, body), true) : false;
      } });
    }
    case 'fullcalendar': {
      // FullCalendar on a page of ours: the Bookshop's events of March 2025 (a toolbar of views, a day with more events than fit, day numbers as links) and a panel showing the event clicked; 3.x a jQuery plugin with its stylesheet, jQuery and Moment beside it, 6.x one global bundle that adds its own styles.
      const modules = path.dirname(dir);
      const v3 = existsSync(path.join(dir, 'dist', 'fullcalendar.min.js'));
      const scripts = v3
        ? '<link rel="stylesheet" href="/lib/fullcalendar/dist/fullcalendar.min.css"><script src="/lib/jquery/dist/jquery.min.js"></script><script src="/lib/moment/min/moment.min.js"></script><script src="/lib/fullcalendar/dist/fullcalendar.min.js"></script>'
        : '<script src="/lib/fullcalendar/index.global.min.js"></script>';
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bookshop events</title><link rel="icon" href="data:,">${scripts}</head>
<body><h1>Bookshop events</h1><aside id="details" aria-label="Event details"><h2 id="details-title">Pick an event</h2><p id="details-where"></p></aside><div id="calendar"></div>
<script src="/events.js"></script></body></html>`;
      return serveStatic({ mounts: { '/lib': modules, '/events.js': path.join(CONTENT, 'fullcalendar-events.js') }, handle: async (req, res) => (pathOf(req) === '/' ? (html(res, page), true) : false) });
    }
    case 'graphiql': {
      // GraphiQL on a page of ours (content/graphiql-page.js) against the Bookshop's GraphQL API: our schema (content/graphiql-bookshop.graphql) and books, run by the graphql package installed beside the version (its peer); React and ReactDOM from their UMD builds beside it too.
      const modules = path.dirname(dir);
      const gql = createRequire(path.join(modules, 'graphql', 'package.json'))('graphql') as GraphQLPackage;
      const schema = gql.buildSchema(await readFile(path.join(CONTENT, 'graphiql-bookshop.graphql'), 'utf8'));
      const rows = JSON.parse(await readFile(path.join(CONTENT, 'graphiql-books.json'), 'utf8')) as Array<{ id: string; title: string; author: string; year: number; price: number; stock: number }>;
      const names = [...new Set(rows.map((b) => b.author))];
      type Author = { id: string; name: string; books: () => Book[] };
      type Book = Omit<(typeof rows)[number], 'author'> & { author: () => Author };
      const authors: Author[] = names.map((name, i) => ({ id: String(i + 1), name, books: () => books.filter((b) => b.author().name === name) }));
      const books: Book[] = rows.map((b) => ({ ...b, author: () => authors.find((a) => a.name === b.author)! }));
      const root = {
        books: ({ author }: { author?: string | null }) => (author ? books.filter((b) => b.author().name === author) : books),
        book: ({ id }: { id: string }) => books.find((b) => b.id === id) ?? null,
        authors: () => authors,
        placeOrder: ({ bookId, quantity }: { bookId: string; quantity: number }) => {
          const book = books.find((b) => b.id === bookId);
          if (!book) throw new Error(`No book with id ${bookId}`);
          return { id: '1', book, quantity, total: Math.round(book.price * quantity * 100) / 100 };
        },
      };
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bookshop GraphQL</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/lib/graphiql/graphiql.min.css">
<style>html, body { margin: 0; height: 100%; } #graphiql { height: 100vh; }</style></head>
<body><div id="graphiql"></div><script src="/lib/react/umd/react.production.min.js"></script><script src="/lib/react-dom/umd/react-dom.production.min.js"></script>
<script src="/lib/graphiql/graphiql.min.js"></script><script src="/page.js"></script></body></html>`;
      return serveStatic({ mounts: { '/lib': modules, '/page.js': path.join(CONTENT, 'graphiql-page.js') }, handle: async (req, res) => {
        if (pathOf(req) === '/') return html(res, page), true;
        if (pathOf(req) !== '/graphql' || req.method !== 'POST') return false;
        let body = '';
        for await (const chunk of req) body += String(chunk);
        const { query, variables, operationName } = JSON.parse(body || '{}') as { query?: string; variables?: Record<string, unknown> | null; operationName?: string | null };
        const result = await gql.graphql({ schema, source: query ?? '', rootValue: root, variableValues: variables ?? undefined, operationName: operationName ?? undefined });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
        return true;
      } });
    }
    case 'introjs': {
      // Intro.js on the Bookshop's pages of ours (content/introjs-page.js): a product tour of the catalogue and tips on the orders page; the same script and stylesheet paths in both versions (the package's root).
      const head = (title: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/introjs/introjs.css"><link rel="icon" href="data:,">
<style>body { font-family: sans-serif; margin: 0; } header { display: flex; gap: 1.5rem; align-items: center; padding: .75rem 1rem; background: #234; color: #fff; } header a { color: #fff; }
main { padding: 1rem; } #books { display: grid; grid-template-columns: repeat(3, 14rem); gap: 1rem; } .book { border: 1px solid #ccc; padding: .75rem; } td, th { padding: .4rem .8rem; text-align: left; }</style></head>
<body><header><strong>Bookshop</strong><nav id="nav"><a href="/">Catalogue</a> <a href="/orders">Orders</a></nav>
<form id="search" role="search" onsubmit="return false"><input type="search" name="q" aria-label="Search books" placeholder="Search books"></form><a id="cart" href="#cart">Cart (<span id="cart-count">0</span>)</a></header>`;
      const foot = '<script src="/introjs/intro.js"></script><script src="/page.js"></script></body></html>';
      const book = (title: string, author: string, price: string) => `<div class="book"><h2>${title}</h2><p>${author}</p><p>${price}</p><button type="button" class="add" data-title="${title}">Add to cart</button></div>`;
      const catalogue = `${head('Bookshop catalogue')}<main><h1>Catalogue</h1><p><button type="button" id="tour">Take the tour</button></p><p id="status" role="status"></p>
<div id="books">${book('Dune', 'Frank Herbert', '€9.99')}${book('Emma', 'Jane Austen', '€6.50')}${book('Solaris', 'Stanisław Lem', '€10.40')}</div></main>${foot}`;
      const order = (id: string, date: string, books: string, total: string, state: string, action: string) => `<tr><td>${id}</td><td>${date}</td><td>${books}</td><td>${total}</td><td>${state}</td><td>${action}</td></tr>`;
      const orders = `${head('Bookshop: your orders')}<main><h1>Your orders</h1><p><button type="button" id="tips">Show tips</button></p><p id="status" role="status"></p>
<table id="orders"><thead><tr><th>Order</th><th>Date</th><th>Books</th><th>Total</th><th>Status</th><th></th></tr></thead><tbody>
${order('1042', '2025-03-02', 'Dune, Emma', '€16.49', 'Delivered', '<button type="button" id="reorder-1042">Reorder</button>')}
${order('1041', '2025-03-09', 'Solaris', '€10.40', 'Shipped', '<a id="track-1041" href="#track">Track parcel</a>')}</tbody></table></main>${foot}`;
      const pages: Record<string, string> = { '/': catalogue, '/orders': orders };
      return serveStatic({ mounts: { '/introjs': dir, '/page.js': path.join(CONTENT, 'introjs-page.js') }, handle: async (req, res) => {
        const body = pages[pathOf(req) ?? ''];
        return body ? (html(res, body), true) : false;
      } });
    }
    case 'json-server': {
      // A copy of our database: json-server writes to it.
      const tmp = await mkdtemp(path.join(tmpdir(), 'assay-healing-json-'));
      await cp(path.join(CONTENT, 'db.json'), path.join(tmp, 'db.json'));
      const port = await freePort();
      const bin = version.startsWith('0.') ? path.join(dir, 'lib', 'cli', 'bin.js') : path.join(dir, 'lib', 'bin.js');
      return startProcess(process.execPath, [bin, path.join(tmp, 'db.json'), '--port', String(port), '--host', '127.0.0.1'], `http://127.0.0.1:${port}`, {
        cwd: tmp,
        cleanup: () => rm(tmp, { recursive: true, force: true }),
      });
    }
    case 'http-server': {
      const port = await freePort();
      return startProcess(process.execPath, [path.join(dir, 'bin', 'http-server'), path.join(CONTENT, 'files'), '-p', String(port), '-a', '127.0.0.1', '-c-1', '-s'], `http://127.0.0.1:${port}`);
    }
    case 'tiddlywiki': {
      // An empty wiki of the server edition, as `tiddlywiki <dir> --init server` makes it.
      const tmp = await mkdtemp(path.join(tmpdir(), 'assay-healing-tw-'));
      const tw = path.join(dir, 'tiddlywiki.js');
      const { execFileSync } = await import('node:child_process');
      execFileSync(process.execPath, [tw, path.join(tmp, 'wiki'), '--init', 'server'], { stdio: 'ignore' });
      const port = await freePort();
      return startProcess(process.execPath, [tw, path.join(tmp, 'wiki'), '--listen', `port=${port}`, 'host=127.0.0.1'], `http://127.0.0.1:${port}`, {
        cleanup: () => rm(tmp, { recursive: true, force: true }),
      });
    }
    default:
      throw new Error(`No starter for the healing pair "${pair.name}"`);
  }
}

/** A pair's two versions behind one address: `url` answers with the old version until `toNew()`. */
export interface SwitchedApp {
  url: string;
  version(): 'old' | 'new';
  toNew(): void;
  close(): Promise<void>;
}

/** Starts both versions and the switch in front of them (a plain HTTP proxy on loopback). */
export async function startPair(pair: Pair): Promise<SwitchedApp> {
  const old = await startVersion(pair, pair.old);
  let next: RunningApp;
  try {
    next = await startVersion(pair, pair.new);
  } catch (err) {
    await old.close();
    throw err;
  }
  let current: 'old' | 'new' = 'old';
  const server = http.createServer((req, res) => {
    const target = new URL(current === 'old' ? old.url : next.url);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (up) => {
        const headers = { ...up.headers };
        // A redirect to the version's own address goes to the switch's.
        if (typeof headers.location === 'string') headers.location = headers.location.replace(target.origin, own);
        res.writeHead(up.statusCode ?? 502, headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const own = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: own,
    version: () => current,
    // Each request reads the version when it comes: open connections need no closing.
    toNew: () => {
      current = 'new';
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([old.close(), next.close()]);
    },
  };
}
