import { randomUUID } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { pinoHttp } from 'pino-http';
import { logSafeUrl } from './log-url.js';
import { ASSAY_VERSION } from '@assay/contracts';
import type { Logger } from '@assay/logger';
import { AppError, MESSAGES, validationError } from './errors.js';

export interface HttpAppOptions {
  name: string;
  logger: Logger;
  /** Largest JSON body accepted (default 1 MB); larger bodies get 413. */
  bodyLimit?: string;
  /** Content types accepted besides JSON (e.g. `multipart/form-data`); the route parses them. */
  extraContentTypes?: string[];
  /** false: leave bodies unread (the gateway streams them to services). Default true. */
  parseJson?: boolean;
  /** Keep each JSON body's raw bytes in `req.rawBody` (signature checks, such as Stripe's, need them). */
  keepRawBody?: boolean;
  /**
   * Readiness checks behind `GET /readyz`: name → reachable (true/false, a dependency the service
   * cannot work without) or a `DependencyCheck` (a non-critical one reports `degraded` and keeps
   * the service ready). Answered within `READINESS_LIMIT_MS` whatever the checks do.
   */
  ready?: () => Promise<Record<string, ReadinessResult>>;
  /** Mounts the service's routers; runs after parsing and before the 404 and error handlers. */
  mount(app: Express): void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A dependency as `/readyz` reports it. */
export interface DependencyCheck {
  status: 'up' | 'degraded' | 'down';
  /** false: the service works without it (writes wait in the outbox): `down` is reported as `degraded` and the service stays ready. Default true. */
  critical?: boolean;
  detail?: string;
}
export type ReadinessResult = boolean | DependencyCheck;

/** `/readyz` answers within this, whatever its checks do (a hung database or broker): the kubelet's probe never times out. */
export const READINESS_LIMIT_MS = 900;

/** Runs the checks with a time limit and folds them into the `/readyz` answer. */
export async function readiness(ready: (() => Promise<Record<string, ReadinessResult>>) | undefined, limitMs = READINESS_LIMIT_MS) {
  if (!ready) return { ok: true, checks: {}, dependencies: {} };
  let timer: NodeJS.Timeout | undefined;
  let results: Record<string, ReadinessResult>;
  try {
    results = await Promise.race([
      ready(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`readiness checks gave no answer within ${limitMs} ms`)), limitMs))),
    ]);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, checks: { checks: false }, dependencies: { checks: { status: 'down' as const, critical: true, detail } } };
  } finally {
    clearTimeout(timer);
  }
  const checks: Record<string, boolean> = {};
  const dependencies: Record<string, DependencyCheck & { critical: boolean }> = {};
  let ok = true;
  for (const [name, r] of Object.entries(results)) {
    const c: DependencyCheck = typeof r === 'boolean' ? { status: r ? 'up' : 'down' } : r;
    const critical = c.critical ?? true;
    const status = !critical && c.status === 'down' ? 'degraded' : c.status;
    checks[name] = status === 'up';
    dependencies[name] = { status, critical, ...(c.detail ? { detail: c.detail } : {}) };
    if (critical && status === 'down') ok = false;
  }
  return { ok, checks, dependencies };
}

/**
 * An express app with request ids, structured logs, JSON parsing with a size
 * limit, `/healthz` and `/readyz`, JSON 404s and the one error middleware.
 * It never listens: `main.ts` does.
 */
export function createHttpApp(opts: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use((req, res, next) => {
    const incoming = req.header('x-request-id');
    const id = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = id;
    res.setHeader('x-request-id', id);
    next();
  });
  app.use(
    pinoHttp({
      logger: opts.logger,
      genReqId: (_req, res) => (res as Response).locals.requestId as string,
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/livez' },
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: logSafeUrl(req.url) }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );

  // The release this process runs: during a rolling upgrade, which replicas are the new ones.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', service: opts.name, version: ASSAY_VERSION });
  });
  // Liveness: the process answers (its event loop turns); no dependency is asked, so an outage never restarts pods.
  app.get('/livez', (_req, res) => {
    res.json({ status: 'ok', service: opts.name });
  });
  app.get('/readyz', async (_req, res) => {
    const { ok, checks, dependencies } = await readiness(opts.ready);
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not_ready', service: opts.name, checks, dependencies });
  });

  const accepted = ['application/json', ...(opts.extraContentTypes ?? [])];
  if (opts.parseJson !== false) app.use((req, _res, next) => {
    const hasBody = Number(req.header('content-length') ?? 0) > 0 || req.header('transfer-encoding') !== undefined;
    if (!hasBody || ['GET', 'HEAD', 'OPTIONS'].includes(req.method)) return next();
    const type = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!accepted.includes(type)) {
      return next(
        new AppError('unsupported_media_type', `Content-Type must be ${accepted.join(' or ')} (got "${type || 'none'}")`),
      );
    }
    next();
  });
  if (opts.parseJson !== false) app.use(
      express.json({
        limit: opts.bodyLimit ?? '1mb',
        strict: true,
        reviver: refuseUnstorableStrings,
        ...(opts.keepRawBody ? { verify: (req: unknown, _res: unknown, buf: Buffer) => void ((req as { rawBody?: Buffer }).rawBody = buf) } : {}),
      }),
    );

  // The same door for the URL: a NUL character in the path (%00) or in a query parameter's name or value
  // would reach Postgres in a text value and fail with a 500 wherever a route forgot to check it.
  app.use((req, _res, next) => {
    if (/%00/i.test(req.path)) return next(validationError([{ field: 'path', message: 'must not contain NUL characters (%00)' }]));
    for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
      const values = Array.isArray(value) ? value : [value];
      if (UNSTORABLE.test(name) || values.some((v) => typeof v === 'string' && UNSTORABLE.test(v))) {
        return next(validationError([{ field: name.replace(UNSTORABLE_ALL, '?'), message: 'must not contain NUL characters or unpaired surrogates' }]));
      }
    }
    next();
  });

  opts.mount(app);

  app.use((req, _res, next) => {
    next(new AppError('not_found', `No route for ${req.method} ${req.path}`));
  });
  app.use(errorMiddleware(opts.logger));
  return app;
}

// Postgres cannot store NUL characters or unpaired surrogates in text or jsonb:
// refuse them at the door with a 400 instead of failing the insert with a 500.
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');
const UNSTORABLE_MESSAGE = 'Request body contains a NUL character or an unpaired surrogate, which cannot be stored';

function refuseUnstorableStrings(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && UNSTORABLE.test(value)) throw new SyntaxError(UNSTORABLE_MESSAGE);
  return value;
}

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

/** Turns any error into `{error, message, details?}`; unknown errors become a 500 that leaks nothing. */
export function errorMiddleware(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const appError = toAppError(err);
    if (appError.status >= 500 && appError.code === 'internal_server_error') {
      logger.error({ err, method: req.method, url: logSafeUrl(req.originalUrl), requestId: res.locals.requestId }, 'unhandled error');
    } else if (!(err instanceof AppError) && appError.status === 503) {
      logger.warn({ err, method: req.method, url: logSafeUrl(req.originalUrl), requestId: res.locals.requestId }, 'dependency unavailable');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    if (appError.status === 429 && typeof appError.extra?.retry_after === 'number') {
      res.setHeader('Retry-After', String(appError.extra.retry_after));
    }
    // A 503 is temporary by definition: say when to try again, so clients (and the SDK) back off and retry
    // instead of treating it as a failure (found by `make soak`: every 503 during a restart lacked it).
    if (appError.status === 503) {
      res.setHeader('Retry-After', String(typeof appError.extra?.retry_after === 'number' ? appError.extra.retry_after : SERVICE_UNAVAILABLE_RETRY_SECONDS));
    }
    res.status(appError.status).json({ ...appError.toBody(), request_id: res.locals.requestId });
  };
}

/** Retry-After of a 503 that names no time of its own: a restarted service or database is usually back within seconds. */
export const SERVICE_UNAVAILABLE_RETRY_SECONDS = 5;

// Postgres going away (a restart, a failover, the server refusing connections while it starts or stops):
// the node-postgres and socket errors it surfaces as. Classes 08 (connection exception) and 57P (operator
// intervention: admin_shutdown, crash_shutdown, cannot_connect_now) and too_many_connections.
const DATABASE_DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006']);
const DATABASE_DOWN_MESSAGES = /Connection terminated|connection terminated unexpectedly|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed and is not queryable|the database system is (starting up|shutting down)/i;

/** True when `err` says the database (or another dependency's socket) is unreachable rather than that the request is wrong. */
export function isDependencyDown(err: unknown): boolean {
  const e = (err ?? {}) as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && DATABASE_DOWN_CODES.has(e.code)) return true;
  if (typeof e.message === 'string' && DATABASE_DOWN_MESSAGES.test(e.message)) return true;
  // Node's AggregateError of a connect to several addresses (127.0.0.1 and ::1).
  return Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every(isDependencyDown);
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDependencyDown(err)) return new AppError('service_unavailable', 'A database or service this request needs is unavailable; try again shortly');
  const e = (err ?? {}) as BodyParserError;
  switch (e.type) {
    case 'entity.parse.failed':
      if ((err as Error).message?.includes(UNSTORABLE_MESSAGE)) {
        return new AppError('validation_error', UNSTORABLE_MESSAGE, [{ field: 'body', message: 'contains an unstorable character' }]);
      }
      return new AppError('validation_error', 'Request body is not valid JSON', [{ field: 'body', message: 'malformed JSON' }]);
    case 'entity.too.large':
      return new AppError('payload_too_large', `Request body exceeds the limit of ${e.limit ?? 'the'} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'Unsupported body encoding or charset');
    case 'request.aborted':
      return new AppError('validation_error', 'Request body was aborted');
    default:
      break;
  }
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return new AppError('validation_error', 'Request could not be read', undefined, undefined, e.status);
  }
  return new AppError('internal_server_error', MESSAGES.internal);
}
