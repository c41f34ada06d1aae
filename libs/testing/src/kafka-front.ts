import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

/**
 * KafkaFront: a test fixture that puts TLS and SASL in front of brokers that
 * have neither (librdkafka's mock cluster), so the real client's TLS and SASL
 * code paths run against real sockets.
 *
 * One listener per upstream broker. Each connection: TLS terminated here (when
 * `tls` is given; with `requireClientCert`, mTLS), then the SASL exchange
 * answered here (SaslHandshake v0-1, SaslAuthenticate v0-1; PLAIN,
 * SCRAM-SHA-256/512 per RFC 5802/7677, OAUTHBEARER per RFC 7628) while every
 * other request is refused until the client has authenticated, as a broker
 * does. After that the Kafka frames are passed through to the upstream broker;
 * the responses that name brokers (Metadata, FindCoordinator) get the front's
 * ports instead of the upstream's, and ApiVersions gains the two SASL APIs, so
 * the client never reaches an upstream broker directly.
 *
 * Two answers of librdkafka's mock that no broker gives are made right here:
 * LeaveGroup v3 (below), and a late SyncGroup. The mock takes a group's
 * assignment from its leader's SyncGroup and then counts the group synced; a
 * follower whose SyncGroup comes after the leader's (two processes in one group,
 * as a rolling upgrade has) gets INVALID_REQUEST, where a broker answers it with
 * its assignment of that generation. The front keeps each generation's
 * assignment from the leader's request and gives the follower its own. And a
 * member's second SyncGroup while its first still waits (a client's retry after
 * its request timeout, under load) makes the mock abort its whole process on an
 * assertion (`!member->resp` in rd_kafka_mock_cgrp_classic_member_sync_set):
 * the front answers that one REBALANCE_IN_PROGRESS itself, and the client joins
 * again, as it does after a broker's.
 *
 * Only the non-flexible request versions (those kafkajs 2.x sends) are parsed.
 */

export type FrontMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER';

export interface KafkaFrontOptions {
  /** Upstream brokers, `host:port`. */
  upstream: string[];
  /** Server certificate (PEM); without it the front speaks plaintext. */
  tls?: { key: string; cert: string; ca?: string; requireClientCert?: boolean };
  /** SASL: without it connections are not authenticated. */
  sasl?: {
    mechanisms: FrontMechanism[];
    /** username → password (PLAIN, SCRAM). */
    users?: Record<string, string>;
    /** Accepted bearer tokens (OAUTHBEARER). */
    tokens?: string[];
  };
  /** A fault for tests: each follower's SyncGroup (one without assignments) reaches the brokers this much later. */
  holdFollowerSyncMs?: number;
}

export interface KafkaFrontStats {
  connections: number;
  tlsConnections: number;
  /** Successful authentications per mechanism. */
  authenticated: Partial<Record<FrontMechanism, number>>;
  /** Failed authentications (bad password, unknown token, unsupported mechanism). */
  rejected: number;
  /** Requests refused because they came before authentication. */
  refusedBeforeAuth: number;
}

export interface KafkaFront {
  /** The front's bootstrap addresses, one per upstream broker. */
  brokers: string[];
  stats: KafkaFrontStats;
  /** A hung broker (as under SIGSTOP): connections stay open, nothing is read or answered, new ones are accepted and left hanging. */
  pause(): void;
  resume(): void;
  /** A stopped broker: open connections are reset and new ones closed at once, until `resume()`. */
  refuse(): void;
  close(): Promise<void>;
}

const API = { Metadata: 3, FindCoordinator: 10, LeaveGroup: 13, SyncGroup: 14, SaslHandshake: 17, ApiVersions: 18, SaslAuthenticate: 36 } as const;
const INVALID_REQUEST = 42;
const REBALANCE_IN_PROGRESS = 27;
/** SyncGroups sent to the brokers and not yet answered, by cluster, group, generation and member (every front of the process). */
const syncsInFlight = new Set<string>();

/**
 * Each group's assignment by generation (`<upstream brokers>|group/generation` → member → assignment bytes), from its
 * leader's SyncGroup, the last few: shared by every front of the process (a group's members may use different ones).
 */
const assignments = new Map<string, Map<string, Buffer>>();
const KEPT_GENERATIONS = 500;
const ERR = { UNSUPPORTED_SASL_MECHANISM: 33, ILLEGAL_SASL_STATE: 34, SASL_AUTHENTICATION_FAILED: 58 } as const;

export async function startKafkaFront(opts: KafkaFrontOptions): Promise<KafkaFront> {
  const stats: KafkaFrontStats = { connections: 0, tlsConnections: 0, authenticated: {}, rejected: 0, refusedBeforeAuth: 0 };
  const portMap = new Map<number, number>();
  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  const brokers: string[] = [];
  const connections = new Set<FrontConnection>();
  let paused = false;
  let refusing = false;

  for (const address of opts.upstream) {
    const [host, portText] = splitHostPort(address);
    const handler = (client: net.Socket) => {
      if (refusing) {
        client.destroy();
        return;
      }
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      stats.connections += 1;
      if (opts.tls) stats.tlsConnections += 1;
      const c = new FrontConnection(client, host, Number(portText), portMap, opts, stats, sockets);
      connections.add(c);
      client.on('close', () => connections.delete(c));
      if (paused) c.pause();
    };
    const server = opts.tls
      ? tls.createServer(
          {
            key: opts.tls.key,
            cert: opts.tls.cert,
            ...(opts.tls.ca ? { ca: opts.tls.ca } : {}),
            requestCert: Boolean(opts.tls.requireClientCert),
            rejectUnauthorized: Boolean(opts.tls.requireClientCert),
          },
          handler,
        )
      : net.createServer(handler);
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    portMap.set(Number(portText), port);
    servers.push(server);
    brokers.push(`127.0.0.1:${port}`);
  }
  return {
    brokers,
    stats,
    pause() {
      paused = true;
      for (const c of connections) c.pause();
    },
    resume() {
      paused = false;
      refusing = false;
      for (const c of connections) c.resume();
    },
    refuse() {
      refusing = true;
      for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}

function splitHostPort(address: string): [string, string] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i), address.slice(i + 1)];
}

interface Pending {
  apiKey: number;
  apiVersion: number;
  /** LeaveGroup v3 sent upstream as v1: the member to name in the v3 answer. */
  member?: string;
  /** SyncGroup: whose (for a late follower's answer). */
  sync?: { key: string; member: string };
}

class FrontConnection {
  private inbound = Buffer.alloc(0);
  private outbound = Buffer.alloc(0);
  private readonly upstream: net.Socket;
  private readonly pending = new Map<number, Pending>();
  /** This connection's SyncGroups in flight (out of `syncsInFlight` when answered or when the connection closes). */
  private readonly syncs = new Set<string>();
  private authenticated: boolean;
  private mechanism?: FrontMechanism;
  private scram?: { user: string; clientFirstBare: string; serverFirst: string; nonce: string; salted: Buffer };

  constructor(
    private readonly client: net.Socket,
    host: string,
    port: number,
    private readonly portMap: Map<number, number>,
    private readonly opts: KafkaFrontOptions,
    private readonly stats: KafkaFrontStats,
    sockets: Set<net.Socket>,
  ) {
    this.authenticated = !opts.sasl;
    this.upstream = net.connect({ host, port });
    sockets.add(this.upstream);
    this.upstream.on('close', () => {
      sockets.delete(this.upstream);
      for (const k of this.syncs) syncsInFlight.delete(k);
      client.destroy();
    });
    this.upstream.on('error', () => client.destroy());
    client.on('error', () => this.upstream.destroy());
    client.on('close', () => this.upstream.destroy());
    client.on('data', (chunk: Buffer) => this.fromClient(chunk));
    this.upstream.on('data', (chunk: Buffer) => this.fromUpstream(chunk));
  }

  pause(): void {
    this.client.pause();
    this.upstream.pause();
  }

  resume(): void {
    this.client.resume();
    this.upstream.resume();
  }

  private fromClient(chunk: Buffer): void {
    this.inbound = Buffer.concat([this.inbound, chunk]);
    while (this.inbound.length >= 4) {
      const size = this.inbound.readInt32BE(0);
      if (this.inbound.length < 4 + size) return;
      const frame = this.inbound.subarray(0, 4 + size);
      this.inbound = this.inbound.subarray(4 + size);
      this.request(frame);
    }
  }

  private request(frame: Buffer): void {
    const apiKey = frame.readInt16BE(4);
    const apiVersion = frame.readInt16BE(6);
    const correlationId = frame.readInt32BE(8);
    const clientIdLength = frame.readInt16BE(12);
    const body = frame.subarray(14 + Math.max(0, clientIdLength));
    if (apiKey === API.SaslHandshake) return this.handshake(correlationId, body);
    if (apiKey === API.SaslAuthenticate) return this.authenticate(correlationId, apiVersion, body);
    if (!this.authenticated && apiKey !== API.ApiVersions) {
      // A broker closes a connection that skips authentication.
      this.stats.refusedBeforeAuth += 1;
      this.client.destroy();
      return;
    }
    if (apiKey === API.LeaveGroup && apiVersion === 3) {
      // librdkafka's mock (2.0) advertises LeaveGroup v3 but parses it as v0-2 and answers garbage: send
      // it the same leave as v1 (one member, the client's own) and answer the client in v3's layout.
      const group = readString(body, 0);
      let at = 2 + Buffer.byteLength(group);
      const count = body.readInt32BE(at);
      at += 4;
      const member = count > 0 ? readString(body, at) : '';
      const head = Buffer.concat([int16(API.LeaveGroup), int16(1), int32(correlationId), frame.subarray(12, 14 + Math.max(0, clientIdLength))]);
      const v1 = Buffer.concat([head, str(group), str(member)]);
      this.pending.set(correlationId, { apiKey, apiVersion, member });
      this.upstream.write(Buffer.concat([int32(v1.length), v1]));
      return;
    }
    if (apiKey === API.SyncGroup && apiVersion <= 3) {
      const sync = this.syncGroup(apiVersion, body);
      const inFlight = `${sync.key}|${sync.member}`;
      if (syncsInFlight.has(inFlight)) {
        const answer = Buffer.concat([apiVersion >= 1 ? int32(0) : Buffer.alloc(0), int16(REBALANCE_IN_PROGRESS), int32(0)]);
        this.client.write(frameOf(correlationId, answer));
        return;
      }
      syncsInFlight.add(inFlight);
      this.syncs.add(inFlight);
      this.pending.set(correlationId, { apiKey, apiVersion, sync });
      if (sync.follower && this.opts.holdFollowerSyncMs) setTimeout(() => this.upstream.write(frame), this.opts.holdFollowerSyncMs);
      else this.upstream.write(frame);
      return;
    }
    this.pending.set(correlationId, { apiKey, apiVersion });
    this.upstream.write(frame);
  }

  /** A SyncGroup request (v0-3): its group, generation and member; a leader's assignment is kept for the generation's followers. */
  private syncGroup(version: number, body: Buffer): { key: string; member: string; follower: boolean } {
    const group = readString(body, 0);
    let at = 2 + Buffer.byteLength(group);
    const generation = body.readInt32BE(at);
    at += 4;
    const member = readString(body, at);
    at += 2 + Buffer.byteLength(member);
    if (version >= 3) {
      const n = body.readInt16BE(at); // group_instance_id, nullable
      at += 2 + Math.max(0, n);
    }
    const key = `${this.opts.upstream.join(',')}|${group}/${generation}`;
    const count = body.readInt32BE(at);
    at += 4;
    if (count > 0) {
      const byMember = new Map<string, Buffer>();
      for (let i = 0; i < count; i++) {
        const id = readString(body, at);
        at += 2 + Buffer.byteLength(id);
        const size = body.readInt32BE(at);
        at += 4;
        byMember.set(id, Buffer.from(body.subarray(at, at + Math.max(0, size))));
        at += Math.max(0, size);
      }
      assignments.set(key, byMember);
      if (assignments.size > KEPT_GENERATIONS) assignments.delete(assignments.keys().next().value!);
    }
    return { key, member, follower: count <= 0 };
  }

  private fromUpstream(chunk: Buffer): void {
    this.outbound = Buffer.concat([this.outbound, chunk]);
    while (this.outbound.length >= 4) {
      const size = this.outbound.readInt32BE(0);
      if (this.outbound.length < 4 + size) return;
      const frame = Buffer.from(this.outbound.subarray(0, 4 + size));
      this.outbound = this.outbound.subarray(4 + size);
      const correlationId = frame.readInt32BE(4);
      const pending = this.pending.get(correlationId);
      this.pending.delete(correlationId);
      this.client.write(pending ? this.rewrite(pending, frame) : frame);
    }
  }

  /** Response frames that name brokers get the front's ports; ApiVersions gains the SASL APIs. */
  private rewrite(p: Pending, frame: Buffer): Buffer {
    const body = 8; // size + correlation id
    if (p.apiKey === API.LeaveGroup && p.member !== undefined) {
      const throttle = frame.readInt32BE(body);
      const error = frame.readInt16BE(body + 4);
      return frameOf(frame.readInt32BE(4), Buffer.concat([int32(throttle), int16(error), int32(1), str(p.member), int16(-1), int16(error)]));
    }
    if (p.apiKey === API.SyncGroup && p.sync) {
      syncsInFlight.delete(`${p.sync.key}|${p.sync.member}`);
      this.syncs.delete(`${p.sync.key}|${p.sync.member}`);
      const errorAt = body + (p.apiVersion >= 1 ? 4 : 0);
      const assignment = assignments.get(p.sync.key)?.get(p.sync.member);
      if (frame.readInt16BE(errorAt) === INVALID_REQUEST && assignment) {
        // The mock refused a follower whose SyncGroup came after the leader's: a broker answers its assignment.
        return frameOf(frame.readInt32BE(4), Buffer.concat([frame.subarray(body, errorAt), int16(0), int32(assignment.length), assignment]));
      }
      return frame;
    }
    if (p.apiKey === API.Metadata && p.apiVersion <= 8) {
      let at = body + (p.apiVersion >= 3 ? 4 : 0);
      const count = frame.readInt32BE(at);
      at += 4;
      const nodeIds: number[] = [];
      for (let i = 0; i < count; i++) {
        nodeIds.push(frame.readInt32BE(at));
        at += 4; // node id
        at += 2 + frame.readInt16BE(at); // host
        this.mapPort(frame, at);
        at += 4;
        if (p.apiVersion >= 1) {
          const rack = frame.readInt16BE(at);
          at += 2 + Math.max(0, rack);
        }
      }
      // The mock names no controller among its brokers; kafkajs needs one for an idempotent producer's id
      // (InitProducerId, which the mock serves): name the first broker.
      if (p.apiVersion >= 1 && count > 0) {
        if (p.apiVersion >= 2) {
          const clusterId = frame.readInt16BE(at);
          at += 2 + Math.max(0, clusterId);
        }
        if (!nodeIds.includes(frame.readInt32BE(at))) frame.writeInt32BE(nodeIds[0]!, at);
      }
      return frame;
    }
    if (p.apiKey === API.FindCoordinator && p.apiVersion <= 2) {
      let at = body;
      if (p.apiVersion >= 1) {
        at += 4 + 2; // throttle, error code
        const message = frame.readInt16BE(at);
        at += 2 + Math.max(0, message);
      } else {
        at += 2;
      }
      at += 4; // node id
      at += 2 + frame.readInt16BE(at); // host
      this.mapPort(frame, at);
      return frame;
    }
    if (p.apiKey === API.ApiVersions && p.apiVersion <= 2 && this.opts.sasl) {
      const errorCode = frame.readInt16BE(body);
      const count = frame.readInt32BE(body + 2);
      const entries: Buffer[] = [];
      let at = body + 6;
      for (let i = 0; i < count; i++, at += 6) {
        const key = frame.readInt16BE(at);
        if (key !== API.SaslHandshake && key !== API.SaslAuthenticate) entries.push(frame.subarray(at, at + 6));
      }
      entries.push(apiRange(API.SaslHandshake, 0, 1), apiRange(API.SaslAuthenticate, 0, 1));
      const head = Buffer.alloc(6);
      head.writeInt16BE(errorCode, 0);
      head.writeInt32BE(entries.length, 2);
      return frameOf(frame.readInt32BE(4), Buffer.concat([head, ...entries, frame.subarray(at)]));
    }
    return frame;
  }

  private mapPort(frame: Buffer, at: number): void {
    const front = this.portMap.get(frame.readInt32BE(at));
    if (front !== undefined) frame.writeInt32BE(front, at);
  }

  private handshake(correlationId: number, body: Buffer): void {
    const mechanism = readString(body, 0) as FrontMechanism;
    const enabled = this.opts.sasl?.mechanisms ?? [];
    const ok = enabled.includes(mechanism);
    if (ok) this.mechanism = mechanism;
    else this.stats.rejected += 1;
    const parts = [int16(ok ? 0 : ERR.UNSUPPORTED_SASL_MECHANISM), int32(enabled.length), ...enabled.map(str)];
    this.client.write(frameOf(correlationId, Buffer.concat(parts)));
  }

  private authenticate(correlationId: number, version: number, body: Buffer): void {
    const authBytes = body.subarray(4, 4 + body.readInt32BE(0));
    const answer = (error: number, message: string | null, bytes: Buffer) => {
      const parts = [int16(error), message === null ? int16(-1) : str(message), int32(bytes.length), bytes];
      if (version >= 1) parts.push(Buffer.alloc(8)); // session lifetime 0: no re-authentication
      this.client.write(frameOf(correlationId, Buffer.concat(parts)));
    };
    const fail = (message: string) => {
      this.stats.rejected += 1;
      answer(ERR.SASL_AUTHENTICATION_FAILED, message, Buffer.alloc(0));
      this.client.end();
    };
    const succeed = (bytes = Buffer.alloc(0)) => {
      this.authenticated = true;
      this.stats.authenticated[this.mechanism!] = (this.stats.authenticated[this.mechanism!] ?? 0) + 1;
      answer(0, null, bytes);
    };
    const sasl = this.opts.sasl;
    if (!sasl || !this.mechanism || this.authenticated) {
      answer(ERR.ILLEGAL_SASL_STATE, 'no SASL handshake before SaslAuthenticate', Buffer.alloc(0));
      return;
    }
    const text = authBytes.toString('utf8');
    if (this.mechanism === 'PLAIN') {
      const [, user, password] = text.split('\u0000');
      return user !== undefined && sasl.users?.[user] !== undefined && sasl.users[user] === password ? succeed() : fail('Authentication failed: Invalid username or password');
    }
    if (this.mechanism === 'OAUTHBEARER') {
      // eslint-disable-next-line no-control-regex -- SOH separates the OAUTHBEARER fields (RFC 7628)
      const m = /auth=Bearer ([^\u0001]+)\u0001/.exec(text);
      return m && sasl.tokens?.includes(m[1]!) ? succeed() : fail('Authentication failed: invalid token');
    }
    const hash = this.mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512';
    if (!this.scram) {
      // client-first: gs2 header, then n=user,r=nonce
      const bare = text.replace(/^[nyp][^,]*,[^,]*,/, '');
      const fields = parseScram(bare);
      const user = (fields.n ?? '').replace(/=2C/g, ',').replace(/=3D/g, '=');
      const password = sasl.users?.[user];
      if (password === undefined || !fields.r) return fail('Authentication failed: unknown user');
      const salt = randomBytes(16);
      const iterations = 4096;
      const nonce = fields.r + randomBytes(18).toString('base64');
      const serverFirst = `r=${nonce},s=${salt.toString('base64')},i=${iterations}`;
      const salted = pbkdf2Sync(password, salt, iterations, hash === 'sha256' ? 32 : 64, hash);
      this.scram = { user, clientFirstBare: bare, serverFirst, nonce, salted };
      return answer(0, null, Buffer.from(serverFirst));
    }
    const s = this.scram;
    const fields = parseScram(text);
    const withoutProof = text.replace(/,p=[^,]*$/, '');
    if (fields.r !== s.nonce || !fields.p) return fail('Authentication failed: nonce mismatch');
    const authMessage = `${s.clientFirstBare},${s.serverFirst},${withoutProof}`;
    const clientKey = createHmac(hash, s.salted).update('Client Key').digest();
    const storedKey = createHash(hash).update(clientKey).digest();
    const signature = createHmac(hash, storedKey).update(authMessage).digest();
    const proof = Buffer.from(fields.p, 'base64');
    if (proof.length !== signature.length) return fail('Authentication failed: Invalid username or password');
    const recoveredKey = Buffer.from(proof.map((b, i) => b ^ signature[i]!));
    if (!timingSafeEqual(createHash(hash).update(recoveredKey).digest(), storedKey)) return fail('Authentication failed: Invalid username or password');
    const serverKey = createHmac(hash, s.salted).update('Server Key').digest();
    succeed(Buffer.from(`v=${createHmac(hash, serverKey).update(authMessage).digest('base64')}`));
  }
}

function parseScram(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

function readString(buf: Buffer, at: number): string {
  const n = buf.readInt16BE(at);
  return buf.subarray(at + 2, at + 2 + n).toString('utf8');
}
const int16 = (v: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
};
const int32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
const str = (v: string) => Buffer.concat([int16(Buffer.byteLength(v)), Buffer.from(v)]);
const apiRange = (key: number, min: number, max: number) => Buffer.concat([int16(key), int16(min), int16(max)]);
function frameOf(correlationId: number, body: Buffer): Buffer {
  return Buffer.concat([int32(body.length + 4), int32(correlationId), body]);
}

export interface TestPki {
  /** PEM of the CA that signed both certificates. */
  ca: string;
  /** Server certificate for 127.0.0.1 and localhost (SANs), and its key. */
  serverCert: string;
  serverKey: string;
  /** Client certificate (CN=assay-test-client) for mTLS, and its key. */
  clientCert: string;
  clientKey: string;
  /** A directory with the same as files (ca.pem, server.pem, server.key, client.pem, client.key); removed by `cleanup()`. */
  dir: string;
  cleanup(): void;
}

/** A throwaway CA with a server and a client certificate, made with the openssl command line. */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'assay-pki-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=assay-test-ca');
  for (const [name, cn, ext] of [
    ['server', 'localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'],
    ['client', 'assay-test-client', 'extendedKeyUsage=clientAuth'],
  ] as const) {
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    execFileSync('sh', ['-c', `printf '%s\\n' "$EXT" > ${name}.ext`], { cwd: dir, env: { ...process.env, EXT: ext } });
    run('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
  }
  const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
  return {
    ca: read('ca.pem'),
    serverCert: read('server.pem'),
    serverKey: read('server.key'),
    clientCert: read('client.pem'),
    clientKey: read('client.key'),
    dir,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
