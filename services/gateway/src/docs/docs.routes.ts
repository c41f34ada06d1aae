import { Router } from 'express';

const esc = (s: unknown) =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: unknown }>;
  requestBody?: { content: Record<string, { schema?: { $ref?: string } }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: { $ref?: string } }> }>;
}

const refName = (ref?: string) => ref?.split('/').pop();
/** Escaped text with `inline code` rendered as <code>. */
const prose = (s: unknown) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** Renders the OpenAPI document as one self-contained HTML page (no scripts, no CDN). */
export function renderDocs(doc: { info: { title: string; description: string }; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } }): string {
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? 'Other';
      const body = refName(op.requestBody?.content['application/json']?.schema?.$ref);
      const params = (op.parameters ?? [])
        .map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${esc(p.description)}</td></tr>`)
        .join('');
      const responses = Object.entries(op.responses)
        .map(([status, r]) => {
          const schema = refName(Object.values(r.content ?? {})[0]?.schema?.$ref);
          return `<li><code>${esc(status)}</code> ${prose(r.description)}${schema ? ` — <a href="#schema-${esc(schema)}">${esc(schema)}</a>` : ''}</li>`;
        })
        .join('');
      const html = `<section class="op" id="${esc(method)}-${esc(path)}">
<h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code>${op.security && op.security.length === 0 ? ' <span class="pub">no credential</span>' : ''}</h3>
<p>${prose(op.summary)}</p>${op.description ? `<p class="d">${prose(op.description)}</p>` : ''}
${params ? `<table><tr><th>Parameter</th><th>In</th><th>Required</th><th></th></tr>${params}</table>` : ''}
${body ? `<p>Body: <a href="#schema-${esc(body)}">${esc(body)}</a></p>` : ''}
<ul>${responses}</ul></section>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const nav = [...byTag.keys()].map((t) => `<a href="#tag-${esc(t)}">${esc(t)}</a>`).join(' · ');
  const sections = [...byTag].map(([t, ops]) => `<h2 id="tag-${esc(t)}">${esc(t)}</h2>${ops.join('')}`).join('');
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, schema]) => `<h3 id="schema-${esc(name)}">${esc(name)}</h3><pre>${esc(JSON.stringify(schema, null, 2))}</pre>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} reference</title><style>
body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#1d2330}
code,pre{font-family:ui-monospace,monospace}pre{background:#f5f6f8;padding:.8rem;overflow:auto;font-size:13px}
.op{border:1px solid #e2e5ea;border-radius:6px;padding:.2rem 1rem;margin:1rem 0}.m{display:inline-block;min-width:4.5rem;font-size:13px;color:#fff;border-radius:4px;padding:2px 6px;text-align:center}
.get{background:#2f7d32}.post{background:#1565c0}.put,.patch{background:#a15c00}.delete{background:#b3261e}.pub{font-size:12px;color:#666}
table{border-collapse:collapse}td,th{border-bottom:1px solid #eee;padding:2px 8px;text-align:left}.d{color:#444}
</style></head><body><h1>${esc(doc.info.title)}</h1><p>${esc(doc.info.description)}</p>
<p>Authenticate with <code>Authorization: Bearer &lt;service key | sk_live_ key | session token&gt;</code> or <code>x-api-key: &lt;sk_live_ key&gt;</code>.
Errors are JSON <code>{error, message, details?}</code>. The machine-readable document is <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
<nav>${nav}</nav>${sections}<h2>Schemas</h2>${schemas}</body></html>`;
}

export function docsRoutes(openApi: () => Record<string, unknown>): Router {
  const router = Router();
  router.get('/api/v1/openapi.json', (_req, res) => {
    res.json(openApi());
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(renderDocs(openApi() as unknown as Parameters<typeof renderDocs>[0]));
  });
  return router;
}
