import type { NextFunction, Request, Response } from 'express';
import { MemoryStore, rateLimit, type IncrementResponse, type Options, type RateLimitRequestHandler, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { planLimits, type RouteMatch } from '@assay/contracts';
import { AppError } from '@assay/http';
import type { Logger } from '@assay/logger';
import type { Principal } from '@assay/principal';

const WINDOWS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
type Window = keyof typeof WINDOWS;

/**
 * The test-case endpoints of the spec (test cases, bulk delete, import, and
 * adding a case to a plan): their catalogue entries name a per-minute bucket of their own.
 */
const isTestCaseEndpoint = (res: Response) => (res.locals.route as RouteMatch | undefined)?.route.rateBucket === 'test_cases';

/** A limit of the caller's plan (the catalog's); `dev` service keys get half ("lower rate limits"). */
function limitOf(p: Principal, base: (limits: ReturnType<typeof planLimits>) => number): number {
  const n = base(planLimits(p.plan));
  return p.environment === 'dev' ? Math.max(1, Math.floor(n / 2)) : n;
}

export interface RateLimitOptions {
  /** Shared counters for every gateway replica; without it counters live in this process. */
  redis?: Redis;
  logger: Logger;
  /** Key prefix in Redis (default `assay:rl:`). */
  prefix?: string;
}

/**
 * Counts in Redis and, while Redis cannot answer, in this process (each
 * replica then enforces the limit alone). Scripts are loaded again after a
 * failure, so counting returns to Redis by itself once it is back.
 */
export class FallbackStore implements Store {
  readonly localKeys = false;
  private readonly memory = new MemoryStore();
  private options: Options | undefined;
  private lastWarning = 0;
  private reloading: Promise<void> | undefined;
  private lastReload = 0;

  constructor(
    private readonly redis: RedisStore,
    private readonly logger: Logger,
    private readonly name: string,
  ) {}

  init(options: Options): void {
    this.options = options;
    this.memory.init(options);
    this.reload();
  }

  async increment(key: string): Promise<IncrementResponse> {
    try {
      return await this.redis.increment(key);
    } catch (err) {
      this.failed(err);
      return this.memory.increment(key);
    }
  }

  async decrement(key: string): Promise<void> {
    try {
      await this.redis.decrement(key);
    } catch (err) {
      this.failed(err);
      await this.memory.decrement(key);
    }
  }

  async resetKey(key: string): Promise<void> {
    await Promise.allSettled([this.redis.resetKey(key), this.memory.resetKey(key)]);
  }

  shutdown(): void {
    this.memory.shutdown();
  }

  private failed(err: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning > 30_000) {
      this.lastWarning = now;
      this.logger.warn({ err: String(err), window: this.name }, 'rate-limit counters unreachable in Redis; counting in this process until it answers');
    }
    // A store whose script load failed keeps failing: load the scripts again, at most once a second.
    if (now - this.lastReload > 1000) this.reload();
  }

  private reload(): void {
    if (!this.options || this.reloading) return;
    this.lastReload = Date.now();
    this.reloading = Promise.resolve(this.redis.init(this.options))
      .catch(() => undefined)
      .finally(() => {
        this.reloading = undefined;
      });
  }
}

function storeFor(opts: RateLimitOptions, name: string): Store | undefined {
  if (!opts.redis) return undefined;
  const redis = opts.redis;
  const store = new RedisStore({
    sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply>,
    prefix: `${opts.prefix ?? 'assay:rl:'}${name}:`,
  });
  return new FallbackStore(store, opts.logger, name);
}

interface Bucket {
  name: string;
  window: Window;
  limit: (p: Principal) => number;
  /** Which calls this bucket counts. */
  applies: (res: Response) => boolean;
  /** It sets the `X-RateLimit-*` headers (one minute bucket applies to a call). */
  headers: boolean;
}

/**
 * Per-credential limits of the caller's plan. Every call counts once per
 * bucket (a bulk delete or an import is one call): the hour and the day
 * count every call; per minute, the test-case endpoints count in a bucket
 * of their own (30/60/120) and every other call in the general one. The
 * minute bucket that applies sets `X-RateLimit-*`; any bucket over its limit
 * answers 429 with `retry_after` and `Retry-After`.
 */
export function rateLimits(opts: RateLimitOptions): RateLimitRequestHandler[] {
  const buckets: Bucket[] = [
    { name: 'minute', window: 'minute', limit: (p) => limitOf(p, (l) => l.rate.minute), applies: (res) => !isTestCaseEndpoint(res), headers: true },
    { name: 'test-cases-minute', window: 'minute', limit: (p) => limitOf(p, (l) => l.testCasesPerMinute), applies: isTestCaseEndpoint, headers: true },
    { name: 'hour', window: 'hour', limit: (p) => limitOf(p, (l) => l.rate.hour), applies: () => true, headers: false },
    { name: 'day', window: 'day', limit: (p) => limitOf(p, (l) => l.rate.day), applies: () => true, headers: false },
  ];
  return buckets.map((bucket) => {
    const store = storeFor(opts, bucket.name);
    const property = `rateLimit_${bucket.name.replace(/-/g, '_')}`;
    return rateLimit({
      windowMs: WINDOWS[bucket.window],
      limit: (_req: Request, res: Response) => bucket.limit(res.locals.principal as Principal),
      keyGenerator: (_req: Request, res: Response) => `${(res.locals.principal as Principal).kind}:${(res.locals.principal as Principal).sub}`,
      skip: (_req: Request, res: Response) => {
        const p = res.locals.principal as Principal | undefined;
        return !p || p.kind === 'service' || !bucket.applies(res);
      },
      standardHeaders: false,
      legacyHeaders: bucket.headers,
      requestPropertyName: property,
      validate: false,
      ...(store ? { store } : {}),
      handler: (req: Request, _res: Response, next: NextFunction) => {
        const info = (req as unknown as Record<string, { resetTime?: Date; limit: number }>)[property];
        const retryAfter = Math.max(1, Math.ceil(((info?.resetTime?.getTime() ?? Date.now() + WINDOWS[bucket.window]) - Date.now()) / 1000));
        const what = bucket.name === 'test-cases-minute' ? 'requests per minute to the test-case endpoints' : `requests per ${bucket.window}`;
        next(new AppError('rate_limit_exceeded', `Rate limit of ${info?.limit} ${what} exceeded`, undefined, { retry_after: retryAfter }));
      },
    });
  });
}
