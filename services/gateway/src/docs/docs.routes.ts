import path from 'node:path';
import { Router, type Response } from 'express';
import swaggerUiDir from 'swagger-ui-dist/absolute-path.js';

// Swagger UI from the swagger-ui-dist package, served by the gateway itself:
// the reference works offline and loads nothing from another origin.
const SWAGGER_UI_DIR = swaggerUiDir();

/** The files of swagger-ui-dist the page uses (its own index.html points at the Petstore demo). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Assay API reference</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assay.css">
</head>
<body>
<header class="assay-intro">
<h1>Assay API reference</h1>
<p>Try any call from this page: press <strong>Authorize</strong>, paste a service key (<code>service_sk_…</code>), an <code>sk_live_</code> API key or a session token, then <strong>Try it out</strong> on an operation. Calls go to this gateway with your key; the key stays in this tab and is forgotten on reload. The document is <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
</header>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  filter: true,
  tryItOutEnabled: false,
  displayRequestDuration: true,
  persistAuthorization: false,
  // No badge from validator.swagger.io: nothing leaves this origin.
  validatorUrl: null,
});
`;

const STYLE = `.assay-intro{font:15px/1.5 system-ui,sans-serif;max-width:1400px;margin:0 auto;padding:1rem 20px 0;color:#3b4151}
.assay-intro h1{font-size:1.6rem;margin:.5rem 0}.assay-intro code{font-family:ui-monospace,monospace;background:#f0f0f0;padding:0 3px}
`;

/**
 * The Content-Security-Policy of the reference: its own scripts and styles
 * only, and requests to this origin and the public base URL (the document's
 * `servers`, where try-it calls go).
 */
function policy(publicBaseUrl: string): string {
  let api = '';
  try {
    api = ` ${new URL(publicBaseUrl).origin}`;
  } catch {
    /* validated at start-up; nothing to add */
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Swagger UI sets style attributes on its elements.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${api}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function send(res: Response, type: string, body: string, csp?: string): void {
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('cache-control', 'no-cache');
  if (csp) res.setHeader('content-security-policy', csp);
  res.type(type).send(body);
}

/** `/api/v1/openapi.json` and the interactive reference at `/docs` (Swagger UI with try-it). */
export function docsRoutes(openApi: () => Record<string, unknown>, publicBaseUrl: string): Router {
  const router = Router();
  const csp = policy(publicBaseUrl);
  router.get('/api/v1/openapi.json', (_req, res) => {
    res.json(openApi());
  });
  router.get('/docs', (_req, res) => send(res, 'text/html; charset=utf-8', PAGE, csp));
  router.get('/docs/init.js', (_req, res) => send(res, 'text/javascript; charset=utf-8', INIT));
  router.get('/docs/assay.css', (_req, res) => send(res, 'text/css; charset=utf-8', STYLE));
  router.get('/docs/assets/:file', (req, res, next) => {
    const type = Object.hasOwn(ASSETS, req.params.file) ? ASSETS[req.params.file] : undefined;
    if (!type) return next();
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('cache-control', 'public, max-age=86400');
    // The package sits under node_modules/.pnpm: a dot directory send() would refuse by default.
    res.type(type).sendFile(path.join(SWAGGER_UI_DIR, req.params.file), { dotfiles: 'allow' }, (err) => err && next(err));
  });
  return router;
}
