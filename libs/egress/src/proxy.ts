import net from 'node:net';
import type { Logger } from '@assay/logger';
import { normaliseHost, type EgressPolicy } from './policy.js';

/** A connection the proxy refused. */
export interface BlockedConnection {
  host: string;
  port: number;
  reason: string;
  at: Date;
}

/**
 * A connection the policy allowed that could not be made. Through a SOCKS
 * proxy Chromium only says ERR_SOCKS_CONNECTION_FAILED; this keeps the cause
 * in the error names Chromium itself would have used.
 */
export interface FailedConnection {
  host: string;
  port: number;
  /** ERR_NAME_NOT_RESOLVED, ERR_CONNECTION_REFUSED, ERR_CONNECTION_TIMED_OUT, ERR_ADDRESS_UNREACHABLE or ERR_CONNECTION_FAILED. */
  code: string;
  at: Date;
}

const CHROMIUM_CODES: Record<string, string> = {
  ECONNREFUSED: 'ERR_CONNECTION_REFUSED',
  ETIMEDOUT: 'ERR_CONNECTION_TIMED_OUT',
  EHOSTUNREACH: 'ERR_ADDRESS_UNREACHABLE',
  ENETUNREACH: 'ERR_ADDRESS_UNREACHABLE',
  ECONNRESET: 'ERR_CONNECTION_RESET',
};

/** How long a client may take to finish the SOCKS handshake, and a connect may take. */
const HANDSHAKE_MS = 10_000;
const CONNECT_MS = 15_000;
/** Refusals remembered between two `takeBlocked()` calls. */
const MAX_BLOCKED = 200;

// SOCKS5 (RFC 1928) reply codes.
const REP = { ok: 0x00, failure: 0x01, notAllowed: 0x02, hostUnreachable: 0x04, refused: 0x05, commandNotSupported: 0x07, addressNotSupported: 0x08 };

/**
 * A SOCKS5 proxy on loopback that lets a connection through only when the
 * egress policy allows its destination, checked on the address it then
 * connects to. Chromium sends SOCKS5 destinations as names (remote DNS), so
 * the browser never resolves a customer's host itself: every document,
 * redirect, subresource, fetch/XHR, iframe and WebSocket of a browser
 * context whose proxy this is passes through `policy`, and a name that
 * resolves elsewhere later (DNS rebinding) is caught when it is used.
 *
 * One proxy per browser context, so its refusals belong to one test case
 * or crawl (`takeBlocked`).
 */
export class EgressProxy {
  private readonly sockets = new Set<net.Socket>();
  private blockedLog: BlockedConnection[] = [];
  private lastFailure: FailedConnection | undefined;

  private constructor(
    private readonly server: net.Server,
    private readonly policy: EgressPolicy,
    private readonly logger: Logger | undefined,
    private readonly label: string,
  ) {}

  /** Listens on a free loopback port. */
  static async start(policy: EgressPolicy, opts: { logger?: Logger; label?: string } = {}): Promise<EgressProxy> {
    const server = net.createServer();
    const proxy = new EgressProxy(server, policy, opts.logger, opts.label ?? 'browser');
    server.on('connection', (socket) => proxy.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    return proxy;
  }

  /** For Playwright's `proxy.server`. */
  get url(): string {
    return `socks5://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  /** The refusals since the last call. */
  takeBlocked(): BlockedConnection[] {
    const out = this.blockedLog;
    this.blockedLog = [];
    return out;
  }

  /** The refusals since the last `takeBlocked`, left in place. */
  peekBlocked(): readonly BlockedConnection[] {
    return this.blockedLog;
  }

  /** The last allowed connection that could not be made (a name that does not resolve, a refused port), if any. */
  lastFailed(): FailedConnection | undefined {
    return this.lastFailure;
  }

  /**
   * Forgets one test case before its context serves the next: closes every
   * connection (the next case opens its own, as in a new context, so no
   * connection-bound server state carries over) and empties the refusal log
   * and the last failure.
   */
  reset(): void {
    for (const s of this.sockets) s.destroy();
    this.blockedLog = [];
    this.lastFailure = undefined;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
  }

  private accept(client: net.Socket): void {
    this.track(client);
    client.setTimeout(HANDSHAKE_MS, () => client.destroy());
    let buf: Buffer = Buffer.alloc(0);
    let stage: 'greeting' | 'request' | 'busy' = 'greeting';

    const onData = (chunk: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      if (stage === 'greeting') {
        if (buf.length < 2) return;
        const n = buf[1]!;
        if (buf[0] !== 0x05) return void client.destroy();
        if (buf.length < 2 + n) return;
        const methods = buf.subarray(2, 2 + n);
        buf = buf.subarray(2 + n);
        if (!methods.includes(0x00)) {
          client.end(Buffer.from([0x05, 0xff]));
          return;
        }
        client.write(Buffer.from([0x05, 0x00]));
        stage = 'request';
      }
      if (stage === 'request') {
        const request = parseRequest(buf);
        if (request === 'incomplete') return;
        stage = 'busy';
        client.off('data', onData);
        client.pause();
        if (request === 'bad') return reply(client, REP.addressNotSupported);
        if (request.command !== 0x01) return reply(client, REP.commandNotSupported);
        void this.connect(client, request.host, request.port, buf.subarray(request.length));
      }
    };
    client.on('data', onData);
  }

  private async connect(client: net.Socket, rawHost: string, port: number, early: Buffer): Promise<void> {
    const host = normaliseHost(rawHost);
    const verdict = await this.policy.checkHost(host).catch((err: Error) => ({ allowed: false as const, reason: err.message }));
    if (client.destroyed) return;
    if (!verdict.allowed && 'category' in verdict && verdict.category === 'unresolvable') {
      // Not the policy's refusal: the name does not resolve (as Chromium would have found itself).
      this.lastFailure = { host, port, code: 'ERR_NAME_NOT_RESOLVED', at: new Date() };
      return reply(client, REP.hostUnreachable);
    }
    if (!verdict.allowed) {
      if (this.blockedLog.length < MAX_BLOCKED) this.blockedLog.push({ host, port, reason: verdict.reason, at: new Date() });
      this.logger?.warn({ host, port, reason: verdict.reason, proxy: this.label }, 'egress blocked');
      return reply(client, REP.notAllowed);
    }
    // Try the checked addresses in order: the socket goes to one of them, never to a fresh lookup.
    let upstream: net.Socket | undefined;
    let lastError: NodeJS.ErrnoException | undefined;
    for (const address of verdict.addresses) {
      try {
        upstream = await open(address, port);
        break;
      } catch (err) {
        lastError = err as NodeJS.ErrnoException;
      }
    }
    if (!upstream) {
      this.lastFailure = { host, port, code: CHROMIUM_CODES[lastError?.code ?? ''] ?? 'ERR_CONNECTION_FAILED', at: new Date() };
      return reply(client, lastError?.code === 'ECONNREFUSED' ? REP.refused : lastError?.code === 'ETIMEDOUT' ? REP.hostUnreachable : REP.failure);
    }
    if (client.destroyed) return void upstream.destroy();
    this.track(upstream);
    client.setTimeout(0);
    client.write(Buffer.from([0x05, REP.ok, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
    if (early.length) upstream.write(early);
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream!.destroy();
    };
    client.once('close', end);
    upstream.once('close', end);
    client.resume();
  }
}

function open(address: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: address, port });
    const timer = setTimeout(() => {
      s.destroy();
      reject(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' }));
    }, CONNECT_MS);
    s.once('connect', () => {
      clearTimeout(timer);
      s.removeAllListeners('error');
      resolve(s);
    });
    s.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function reply(client: net.Socket, code: number): void {
  client.end(Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
}

type ParsedRequest = { command: number; host: string; port: number; length: number } | 'incomplete' | 'bad';

/** VER CMD RSV ATYP DST.ADDR DST.PORT */
function parseRequest(b: Buffer): ParsedRequest {
  if (b.length < 5) return 'incomplete';
  if (b[0] !== 0x05) return 'bad';
  const command = b[1]!;
  const atyp = b[3]!;
  let host: string;
  let at: number;
  if (atyp === 0x01) {
    if (b.length < 10) return 'incomplete';
    host = `${b[4]}.${b[5]}.${b[6]}.${b[7]}`;
    at = 8;
  } else if (atyp === 0x03) {
    const len = b[4]!;
    if (b.length < 5 + len + 2) return 'incomplete';
    host = b.toString('latin1', 5, 5 + len);
    at = 5 + len;
  } else if (atyp === 0x04) {
    if (b.length < 22) return 'incomplete';
    const parts: string[] = [];
    for (let i = 0; i < 16; i += 2) parts.push(b.readUInt16BE(4 + i).toString(16));
    host = parts.join(':');
    at = 20;
  } else {
    return 'bad';
  }
  return { command, host, port: b.readUInt16BE(at), length: at + 2 };
}
