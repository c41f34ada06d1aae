import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import type { Dispatcher } from 'undici';
import { buildOpenApi, requiredScope, type ServiceName } from '@assay/contracts';
import { AppError, createHttpApp, forbidden, invalidApiKey, notImplemented, type ReadinessResult } from '@assay/http';
import type { Logger } from '@assay/logger';
import type { handleMcpHttpRequest } from '@assay/mcp';
import { hasScope, servicePrincipal, signPrincipal, type Principal } from '@assay/principal';
import { planRefusal, quotaRefusal } from './access/access.js';
import type { Authenticator } from './auth/authenticator.js';
import type { UpstreamName } from './config.js';
import { consoleRoutes } from './console/console.routes.js';
import { docsRoutes } from './docs/docs.routes.js';
import { mcpHandler } from './mcp/mcp.routes.js';
import { forward } from './proxy/proxy.js';
import { rateLimits } from './rate-limit/rate-limit.js';
import { resolveRoute, type ResolvedRoute } from './routing/route-map.js';

export interface GatewayDeps {
  logger: Logger;
  authenticator: Authenticator;
  dispatcher: Dispatcher;
  upstreams: Partial<Record<UpstreamName, string>>;
  internalTokenSecret: string;
  publicBaseUrl: string;
  rateLimitsEnabled: boolean;
  /** Shared rate-limit counters; without it each gateway process counts alone. */
  redis?: Redis;
  upstreamResponseTimeoutMs: number;
  ready?: () => Promise<Record<string, ReadinessResult>>;
  /** Serves `POST /mcp` (libs/mcp); main.ts loads it on the first call. Absent: /mcp answers 501. */
  mcp?: typeof handleMcpHttpRequest;
  /** The built web console (apps/console/dist); absent: console pages answer 501. */
  consoleDir?: string;
}

const SERVICE_LABEL: Record<UpstreamName, string> = {
  auth: 'auth',
  'test-case': 'test-case',
  'execution-runner': 'execution-runner',
  'discovery-crawler': 'discovery-crawler',
  analysis: 'analysis',
  'webhook-dispatcher': 'webhook-dispatcher',
};

const REFRESH_ROUTE = /^\/api\/auth\/refresh\/?$/;
const REFRESH_COOKIE = '__Secure-assay_refresh';

/** The console's refresh cookie alone (auth's session cookie), for the refresh route: no other cookie of the caller goes on. */
function refreshCookieOf(req: Request): string | undefined {
  for (const part of String(req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === REFRESH_COOKIE) return `${REFRESH_COOKIE}=${part.slice(eq + 1).trim()}`;
  }
  return undefined;
}

/** The credential of a call: `Authorization: Bearer` first, else `x-api-key` (sk_live_ only). */
function credentialOf(req: Request): string {
  const authorization = req.header('authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw invalidApiKey('Authorization header must be "Bearer <credential>"');
    return match[1]!;
  }
  const apiKey = req.header('x-api-key');
  if (apiKey !== undefined) {
    if (!apiKey.trim().startsWith('sk_live_')) throw invalidApiKey();
    return apiKey.trim();
  }
  throw invalidApiKey('A credential is required: send "Authorization: Bearer <key>" or "x-api-key: <sk_live_ key>"');
}

/** The gateway's express app: docs, authentication, scopes, rate limits, routing; it never listens. */
export function buildApp(deps: GatewayDeps): Express {
  const services = new Set<ServiceName>(['gateway', ...(Object.keys(deps.upstreams) as UpstreamName[])]);
  let openApiDoc: Record<string, unknown> | undefined;
  const openApi = () => (openApiDoc ??= buildOpenApi({ services, serverUrl: deps.publicBaseUrl }));
  const limiters = deps.rateLimitsEnabled ? rateLimits({ logger: deps.logger, ...(deps.redis ? { redis: deps.redis } : {}) }) : [];

  return createHttpApp({
    name: 'gateway',
    logger: deps.logger,
    parseJson: false,
    ...(deps.ready ? { ready: deps.ready } : {}),
    mount(app) {
      app.use(docsRoutes(openApi, deps.publicBaseUrl));
      // The web console and the trace viewer: static files, no credential (the app signs in through the API).
      app.use(consoleRoutes({ consoleDir: deps.consoleDir ?? '/nonexistent' }));

      // Resolve the route before anything else: unknown paths are 404 for everyone.
      app.use((req: Request, res: Response, next: NextFunction) => {
        const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
        const route = resolveRoute(req.method, req.path, search);
        if (!route) return next(new AppError(404, 'not_found', `No route for ${req.method} ${req.path}`));
        res.locals.route = route;
        next();
      });

      app.use(async (req: Request, res: Response, next: NextFunction) => {
        const route = res.locals.route as ResolvedRoute;
        if (route.public) {
          res.locals.principal = servicePrincipal('gateway');
          return next();
        }
        const { principal, key_id, quotas_exceeded } = await deps.authenticator.authenticate(credentialOf(req));
        res.locals.principal = principal;
        res.locals.keyId = key_id;
        res.locals.quotasExceeded = quotas_exceeded;
        if (principal.kind === 'api_key') {
          const scope = requiredScope(req.method, req.path);
          if (scope && !hasScope(principal, scope)) return next(forbidden(`This API key lacks the "${scope}" scope`));
        }
        next();
      });

      for (const limiter of limiters) app.use(limiter);

      // The plan's API access, then its monthly quotas for new work (both 403 insufficient_permissions).
      app.use((req: Request, res: Response, next: NextFunction) => {
        const principal = res.locals.principal as Principal;
        next(planRefusal(principal, req.path) ?? quotaRefusal(req.method, req.path, res.locals.quotasExceeded) ?? undefined);
      });
      // The MCP endpoint: authenticated and rate-limited above like any call; its tools call this gateway back with the same credential.
      app.all('/mcp', express.json({ limit: '1mb' }), mcpHandler((req) => credentialOf(req), deps.mcp));

      app.use(async (req: Request, res: Response) => {
        const route = res.locals.route as ResolvedRoute;
        if (route.service === 'gateway') throw new AppError(404, 'not_found', `No route for ${req.method} ${req.path}`);
        const baseUrl = deps.upstreams[route.service];
        if (!baseUrl) throw notImplemented(`The ${SERVICE_LABEL[route.service]} service is not part of this deployment yet`);
        // Listings of keys show usage: report this gateway's counts first so they are exact.
        if (route.service === 'auth' && req.method === 'GET' && /^\/api\/(service|api)-keys\/?$/.test(req.path)) {
          await deps.authenticator.flushUsage();
        }
        const principalToken = await signPrincipal(deps.internalTokenSecret, res.locals.principal as Principal);
        const cookie = route.service === 'auth' && REFRESH_ROUTE.test(req.path) ? refreshCookieOf(req) : undefined;
        await forward(req, res, { service: route.service, baseUrl, path: route.upstreamPath, principalToken, setsCookies: route.service === 'auth', ...(cookie ? { cookie } : {}) }, {
          dispatcher: deps.dispatcher,
          responseTimeoutMs: deps.upstreamResponseTimeoutMs,
          logger: deps.logger,
        });
      });
    },
  });
}
