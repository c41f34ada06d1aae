import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import type { Dispatcher } from 'undici';
import { ROUTES, buildOpenApi, routeMatcher, type RouteContract, type RouteMatch, type ServiceName } from '@assay/contracts';
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
  /** The route catalogue the gateway serves (default: the contracts' ROUTES); a route not in it answers 404. */
  routes?: readonly RouteContract[];
}

const SERVICE_LABEL: Record<UpstreamName, string> = {
  auth: 'auth',
  'test-case': 'test-case',
  'execution-runner': 'execution-runner',
  'discovery-crawler': 'discovery-crawler',
  analysis: 'analysis',
  'webhook-dispatcher': 'webhook-dispatcher',
};

const REFRESH_ROUTE = '/api/auth/refresh';
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
  const router = routeMatcher(deps.routes ?? ROUTES);
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

      // Resolve the route before anything else: a path or method the catalogue does not name is 404 for everyone.
      app.use((req: Request, res: Response, next: NextFunction) => {
        const match = router.match(req.method, req.path);
        if (!match) return next(new AppError('not_found', `No route for ${req.method} ${req.path}`));
        res.locals.route = match;
        next();
      });

      app.use(async (req: Request, res: Response, next: NextFunction) => {
        const { route } = res.locals.route as RouteMatch;
        if (route.auth === false) {
          res.locals.principal = servicePrincipal('gateway');
          return next();
        }
        const { principal, key_id, quotas_exceeded } = await deps.authenticator.authenticate(credentialOf(req));
        res.locals.principal = principal;
        res.locals.keyId = key_id;
        res.locals.quotasExceeded = quotas_exceeded;
        if (principal.kind === 'api_key' && route.scope && !hasScope(principal, route.scope)) {
          return next(forbidden(`This API key lacks the "${route.scope}" scope`));
        }
        next();
      });

      for (const limiter of limiters) app.use(limiter);

      // The plan's API access, then its monthly quotas for new work (both 403 insufficient_permissions).
      app.use((req: Request, res: Response, next: NextFunction) => {
        const { route } = res.locals.route as RouteMatch;
        next(planRefusal(res.locals.principal as Principal, route) ?? quotaRefusal(route, res.locals.quotasExceeded) ?? undefined);
      });
      // The MCP endpoint: authenticated and rate-limited above like any call; its tools call this gateway back with the same credential.
      app.all('/mcp', express.json({ limit: '1mb' }), mcpHandler((req) => credentialOf(req), deps.mcp));

      app.use(async (req: Request, res: Response) => {
        const { route, upstreamPath } = res.locals.route as RouteMatch;
        if (route.service === 'gateway') throw new AppError('not_found', `No route for ${req.method} ${req.path}`);
        const baseUrl = deps.upstreams[route.service];
        if (!baseUrl) throw notImplemented(`The ${SERVICE_LABEL[route.service]} service is not part of this deployment yet`);
        // Listings of keys show usage: report this gateway's counts first so they are exact.
        if (route.method === 'GET' && (route.path === '/api/service-keys' || route.path === '/api/api-keys')) {
          await deps.authenticator.flushUsage();
        }
        const principalToken = await signPrincipal(deps.internalTokenSecret, res.locals.principal as Principal);
        const cookie = route.path === REFRESH_ROUTE ? refreshCookieOf(req) : undefined;
        const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
        await forward(req, res, { service: route.service, baseUrl, path: upstreamPath + search, principalToken, setsCookies: route.service === 'auth', ...(cookie ? { cookie } : {}) }, {
          dispatcher: deps.dispatcher,
          responseTimeoutMs: deps.upstreamResponseTimeoutMs,
          logger: deps.logger,
        });
      });
    },
  });
}
