import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Authentication as AuthAnswer } from '@assay/contracts';
import type { Logger } from '@assay/logger';
import { AppError, invalidApiKey, serviceUnavailable } from '@assay/http';
import { InternalClient } from '@assay/internal-client';
import type { Principal } from '@assay/principal';

/** Auth's answer for a credential (the internal catalogue's), with the principal as libs/principal types it. */
export type Authentication = AuthAnswer<Principal>;

interface CacheEntry {
  auth: Authentication;
  expiresAt: number;
}

export interface AuthenticatorOptions {
  authUrl: string;
  internalTokenSecret: string;
  cacheTtlMs: number;
  usageFlushMs: number;
  dispatcher: Dispatcher;
  logger: Logger;
  maxEntries?: number;
}

/**
 * Resolves credentials through auth's `/internal/authenticate`, caches the
 * answers briefly (never past a key's expiry), evicts them on revocation
 * events, and reports per-key usage to auth in batches.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<Authentication>>();
  private usage = new Map<string, { count: number; last: number }>();
  private flushing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;

  private readonly auth: InternalClient;

  constructor(private readonly opts: AuthenticatorOptions) {
    this.auth = new InternalClient({ caller: 'gateway', urls: { auth: opts.authUrl }, internalTokenSecret: opts.internalTokenSecret, dispatcher: opts.dispatcher });
    this.timer = setInterval(() => void this.flushUsage(), opts.usageFlushMs);
    this.timer.unref();
  }

  /**
   * @throws AppError 401/403 as auth decided, 503 when auth is unreachable.
   */
  async authenticate(credential: string): Promise<Authentication> {
    const id = createHash('sha256').update(credential).digest('base64url');
    const hit = this.cache.get(id);
    if (hit && hit.expiresAt > Date.now()) return this.count(hit.auth);
    let pending = this.inflight.get(id);
    if (!pending) {
      pending = this.ask(credential).finally(() => this.inflight.delete(id));
      this.inflight.set(id, pending);
    }
    const auth = await pending;
    const validUntil = auth.valid_until ? Date.parse(auth.valid_until) : Infinity;
    if (this.opts.cacheTtlMs > 0) {
      if (this.cache.size >= (this.opts.maxEntries ?? 10_000)) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(id, { auth, expiresAt: Math.min(Date.now() + this.opts.cacheTtlMs, validUntil) });
    }
    return this.count(auth);
  }

  /** Forgets every cached answer for a key (revocation). */
  evictKey(keyId: string): void {
    for (const [id, entry] of this.cache) if (entry.auth.key_id === keyId) this.cache.delete(id);
  }

  /** Forgets every cached answer for an organization (suspension, deletion). */
  evictOrganization(orgId: string): void {
    for (const [id, entry] of this.cache) if (entry.auth.principal.org_id === orgId) this.cache.delete(id);
  }

  private count(auth: Authentication): Authentication {
    if (auth.key_id) {
      const u = this.usage.get(auth.key_id) ?? { count: 0, last: 0 };
      u.count += 1;
      u.last = Date.now();
      this.usage.set(auth.key_id, u);
    }
    return auth;
  }

  /** Sends counted usage to auth; counts that fail to send are kept for the next flush. */
  async flushUsage(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.usage.size === 0) return;
    const batch = this.usage;
    this.usage = new Map();
    this.flushing = (async () => {
      try {
        const body = { usage: [...batch].map(([key_id, u]) => ({ key_id, count: u.count, last_used: new Date(u.last).toISOString() })) };
        await this.auth.expect('reportUsage', { body });
      } catch (err) {
        for (const [key, u] of batch) {
          const cur = this.usage.get(key) ?? { count: 0, last: 0 };
          this.usage.set(key, { count: cur.count + u.count, last: Math.max(cur.last, u.last) });
        }
        this.opts.logger.warn({ err }, 'usage report failed; will retry');
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  private async ask(credential: string): Promise<Authentication> {
    try {
      return await this.auth.expect<'authenticate', Authentication>('authenticate', { body: { credential } }, {
        400: () => {
          throw invalidApiKey();
        },
        401: (error) => {
          throw invalidApiKey(typeof error.message === 'string' ? error.message : undefined);
        },
        403: (error) => {
          throw new AppError('insufficient_permissions', String(error.message ?? 'Forbidden'));
        },
      });
    } catch (err) {
      if (err instanceof AppError && err.code !== 'service_unavailable') throw err;
      this.opts.logger.error({ err }, 'auth unreachable or answered unexpectedly');
      throw serviceUnavailable('The auth service is unavailable; try again shortly');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushUsage();
  }
}
