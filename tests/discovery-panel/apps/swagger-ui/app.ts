// Swagger UI (npm `swagger-ui-dist`, React): the explorer of our Bookshop API
// (../../openapi.ts), whose "Try it out" calls the small API served beside
// it. The page is Swagger UI's own index.html with its initializer pointed at
// our description and the online validator off (it would call out).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { handleBookshop } from '../../openapi.js';
import { packageDir, serveStatic, type RunningApp } from '../../support.js';

const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], plugins: [SwaggerUIBundle.plugins.DownloadUrl], layout: 'StandaloneLayout' });
};`;

export async function startSwaggerUi(): Promise<RunningApp> {
  const dist = packageDir('swagger-ui-dist');
  const index = await readFile(path.join(dist, 'index.html'), 'utf8');
  return serveStatic({
    mounts: { '/': dist },
    handle: async (req, res) => {
      const p = (req.url ?? '/').split('?')[0];
      if (p === '/' || p === '/index.html') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(index);
        return true;
      }
      if (p === '/swagger-initializer.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(INITIALIZER);
        return true;
      }
      return handleBookshop(req, res);
    },
  });
}
