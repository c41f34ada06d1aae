import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type Request, type Response } from 'express';
import { notImplemented } from '@assay/http';

/** apps/console/dist of this checkout: `make setup` builds it. */
export const DEFAULT_CONSOLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../apps/console/dist');

/** Playwright's trace viewer, as the installed playwright-core package ships it. */
export function traceViewerDir(): string {
  const pkg = createRequire(import.meta.url).resolve('playwright-core/package.json');
  return path.join(path.dirname(pkg), 'lib/vite/traceViewer');
}

/**
 * The console's policy: everything from this origin, nothing inline, no
 * framing. Screenshots and traces are fetched with the session token and
 * shown as blob: URLs, hence `blob:` for images.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The trace viewer's policy: its own scripts and service worker; React sets
 * style attributes; the DOM snapshots are served by its service worker into a
 * same-origin frame (so frames and framing by itself only); the trace arrives
 * as a blob from the console (postMessage), which the worker reads.
 */
export const TRACE_VIEWER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' blob: data:",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** Paths the API, the reference and the health checks own: never the console's, so an unknown one stays a 404 JSON. */
const NOT_CONSOLE = /^\/(api|v1|docs|mcp|healthz|readyz|trace|assets)(\/|$)/;

/** Whether a GET is a console page (the single-page app's own routes): `/`, or a browser asking for HTML (an explicit text/html) on a path with no file extension. */
export function isConsolePage(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (NOT_CONSOLE.test(req.path) || /\.[a-z0-9]+$/i.test(req.path)) return false;
  return req.path === '/' || /\btext\/html\b/.test(req.header('accept') ?? '');
}

function securityHeaders(res: Response, csp: string): void {
  res.setHeader('content-security-policy', csp);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
}

/**
 * The web console (apps/console/dist) at `/`, with a fallback to its
 * index.html for its own routes, hashed assets under `/assets/` cached for a
 * year, and Playwright's trace viewer from playwright-core under `/trace/`.
 * Without a build, console pages answer 501 saying how to build it.
 */
export function consoleRoutes(opts: { consoleDir: string; traceDir?: string }): Router {
  const router = Router();
  const indexFile = path.join(opts.consoleDir, 'index.html');

  const traceDir = opts.traceDir ?? traceViewerDir();
  // Its index.html carries one inline script (a notice for file:// only) that the policy would refuse: drop it.
  const traceIndex = existsSync(path.join(traceDir, 'index.html'))
    ? readFileSync(path.join(traceDir, 'index.html'), 'utf8').replace(/<script>\s*if \(!\/\^https\?:\/[\s\S]*?<\/script>/, '')
    : undefined;
  router.get(['/trace', '/trace/', '/trace/index.html'], (req, res, next) => {
    if (!traceIndex) return next(notImplemented('The trace viewer is not installed (playwright-core)'));
    if (req.path === '/trace') return res.redirect(301, '/trace/');
    securityHeaders(res, TRACE_VIEWER_CSP);
    res.setHeader('cache-control', 'no-cache');
    res.type('text/html; charset=utf-8').send(traceIndex);
  });
  router.use(
    '/trace',
    express.static(traceDir, {
      index: false,
      dotfiles: 'allow',
      fallthrough: true,
      setHeaders(res, file) {
        securityHeaders(res, TRACE_VIEWER_CSP);
        // Hashed file names are immutable; the service worker and the rest are revalidated.
        res.setHeader('cache-control', /\.[A-Za-z0-9_-]{8}\.(js|css|ttf)$|assets\//.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache');
        if (file.endsWith('sw.bundle.js')) res.setHeader('service-worker-allowed', '/trace/');
      },
    }),
  );

  router.use(
    '/assets',
    express.static(path.join(opts.consoleDir, 'assets'), {
      index: false,
      dotfiles: 'allow',
      fallthrough: true,
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => securityHeaders(res, CONSOLE_CSP),
    }),
  );

  router.get('/favicon.svg', (_req, res, next) => {
    securityHeaders(res, CONSOLE_CSP);
    res.setHeader('cache-control', 'public, max-age=86400');
    res.sendFile(path.join(opts.consoleDir, 'favicon.svg'), { dotfiles: 'allow' }, (err) => err && next());
  });

  router.use((req, res, next) => {
    if (!isConsolePage(req)) return next();
    if (!existsSync(indexFile)) return next(notImplemented('The web console is not built: run `make setup` (pnpm --filter @assay/console build)'));
    securityHeaders(res, CONSOLE_CSP);
    res.setHeader('cache-control', 'no-cache');
    res.type('text/html; charset=utf-8').sendFile(indexFile, { dotfiles: 'allow' });
  });
  return router;
}
