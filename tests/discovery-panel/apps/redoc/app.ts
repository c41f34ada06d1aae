// Redoc (npm `redoc`, its standalone bundle: React): the reference page of our
// Bookshop API (../../openapi.ts), on a page of ours that loads the bundle,
// as Redoc's documentation shows.
import path from 'node:path';
import { handleBookshop } from '../../openapi.js';
import { packageDir, serveStatic, type RunningApp } from '../../support.js';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bookshop API reference</title><link rel="icon" href="data:,"></head>
<body><redoc spec-url="/openapi.json"></redoc><script src="/redoc/redoc.standalone.js"></script></body></html>`;

export async function startRedoc(): Promise<RunningApp> {
  return serveStatic({
    mounts: { '/redoc': path.join(packageDir('redoc'), 'bundles') },
    handle: async (req, res) => {
      if ((req.url ?? '/').split('?')[0] === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
        return true;
      }
      return handleBookshop(req, res);
    },
  });
}
