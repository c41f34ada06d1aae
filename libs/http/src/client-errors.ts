import type { Server, ServerResponse } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';

const ANSWERS: Record<string, [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'payload_too_large', 'Request headers are larger than the 16 KB this server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'validation_error', 'The request did not arrive in time'],
};
const MALFORMED: [number, string, string, string] = [400, 'Bad Request', 'validation_error', 'Malformed HTTP request'];

/**
 * Node answers requests it cannot parse (headers over 16 KB, bad framing)
 * itself, with a bare status line. This answers them with the same JSON
 * error body every other error has.
 */
export function answerClientErrorsWithJson(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const [status, reason, error, message] = ANSWERS[err.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify({ error, message });
    socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
}

/** How long an idle keep-alive connection stays open on our servers (Node's default is 5 s). */
export const KEEP_ALIVE_MS = 65_000;

/**
 * Keeps idle keep-alive connections open for 65 s instead of Node's 5 s.
 * Callers (the gateway's pool, fetch) expire a pooled connection a little
 * before the server's advertised timeout; on a loaded machine their expiry
 * timer fires late, and a request sent on a connection the server has just
 * closed fails ("other side closed", a 503 through the gateway). Idle gaps of
 * a few seconds are common, of a minute rare, so the long timeout makes that
 * race rare. `server.close()` still ends idle connections at once.
 */
export function keepConnectionsAlive(server: Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // Must exceed keepAliveTimeout, or a slow next request on a kept connection is cut off.
  server.headersTimeout = KEEP_ALIVE_MS + 1000;
}

/**
 * Stops a server as a pod leaving a rolling upgrade must: no new connection, every request in flight
 * answered, and a request that still arrives on a kept-alive connection answered too, with
 * `Connection: close` (the caller's next one goes elsewhere); resolves once every connection is
 * closed, or `limitMs` passed. Closing the database under requests still running answered them 500
 * (found by `make upgrade-drill`).
 *
 * Kept-alive connections that are idle stay open for `idleGraceMs` before they are closed: closed at
 * once (what `server.close()` does), a caller that sent its next request on one just then gets the
 * connection reset instead of an answer, which the drill saw as a client's request left unanswered
 * when the gateway stopped. A caller that keeps using its connection gets its answer and the close
 * with it; one idle for the whole grace is unlikely to send at the very moment it is closed.
 */
export function drainServer(server: Server, limitMs: number, idleGraceMs = DRAIN_IDLE_GRACE_MS): Promise<void> {
  // First among the request listeners: the app's own may answer before a later one runs.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  });
  return new Promise<void>((resolve) => {
    let idle: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      clearTimeout(grace);
      clearInterval(idle);
      resolve();
    };
    const timer = setTimeout(done, limitMs);
    timer.unref();
    // The listener only (net.Server's close): http.Server's would close the idle connections at once too.
    net.Server.prototype.close.call(server, () => done());
    // After the grace, a connection whose request was answered turns idle: closed at once rather than at its keep-alive timeout.
    const grace = setTimeout(() => {
      server.closeIdleConnections();
      idle = setInterval(() => server.closeIdleConnections(), 50);
    }, Math.min(idleGraceMs, Math.max(0, limitMs - 500)));
    grace.unref();
  });
}

/** How long a stopping server leaves its idle kept-alive connections open (drainServer). */
export const DRAIN_IDLE_GRACE_MS = 1500;

/** Methods a second send cannot make do twice what the caller asked once (RFC 9110 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Errors of a connection that ended or was refused before any answer (not a timeout: the upstream may be working). */
const CONNECTION_LOST = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE']);

/**
 * Whether a call may go once more after `err`: an idempotent method whose connection was lost before
 * any answer (a replica stopping in a rolling upgrade closes its kept-alive connections). The gateway's
 * proxy and the internal client both ask this.
 */
export function resendable(method: string, err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return IDEMPOTENT.has(method.toUpperCase()) && typeof code === 'string' && CONNECTION_LOST.has(code);
}
