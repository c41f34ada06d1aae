import http from 'node:http';

export interface Reply {
  status: number;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: any;
  headers: Headers;
}

/** One real HTTP call with fetch; JSON in, JSON (or text) out. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* HTML or empty */
  }
  return { status: res.status, body, headers: res.headers };
}

/** A GET whose path is sent byte for byte (fetch would normalise dot segments). */
export function rawGet(baseUrl: string, path: string): Promise<{ status: number; body: string; contentType: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, contentType: String(res.headers['content-type'] ?? '') }));
    });
    req.on('error', reject);
    req.end();
  });
}

export const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
