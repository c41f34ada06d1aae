import type { Server } from 'node:http';
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
