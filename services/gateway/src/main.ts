import { Redis } from 'ioredis';
import { Agent } from 'undici';
import { createBus } from '@assay/bus';
import { createLogger } from '@assay/logger';
import { busReadiness, listenUntilStopped, startMain } from '@assay/runtime';
import { buildApp } from './app.js';
import { Authenticator } from './auth/authenticator.js';
import { subscribeToAuthEvents } from './auth/eviction.js';
import { loadConfig } from './config.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger('gateway', config.logLevel);
  const dispatcher = new Agent({ connect: { timeout: config.upstreamConnectTimeoutMs }, keepAliveTimeout: 30_000 });
  const authenticator = new Authenticator({
    authUrl: config.upstreams.auth!,
    internalTokenSecret: config.internalTokenSecret,
    cacheTtlMs: config.authCacheTtlMs,
    usageFlushMs: config.usageFlushMs,
    dispatcher,
    logger,
  });

  // The gateway owns no schema; it uses the bus only to hear revocations.
  const bus = createBus({ kind: config.bus, databaseUrl: config.databaseUrl, kafka: config.kafka, clientId: 'assay-gateway', logger });
  await bus.start();
  const subscription = await subscribeToAuthEvents(bus, authenticator);

  const redis = config.redisUrl && config.rateLimitsEnabled ? await connectRedis(config.redisUrl, logger) : undefined;

  // The MCP server (its SDK, zod) loads on the first /mcp call, so start-up does not pay for it.
  let mcp: Promise<typeof import('@assay/mcp')> | undefined;
  const app = buildApp({
    logger,
    authenticator,
    dispatcher,
    upstreams: config.upstreams,
    internalTokenSecret: config.internalTokenSecret,
    publicBaseUrl: config.publicBaseUrl,
    rateLimitsEnabled: config.rateLimitsEnabled,
    ...(redis ? { redis } : {}),
    upstreamResponseTimeoutMs: config.upstreamResponseTimeoutMs,
    // The gateway serves without the bus (revocations arrive when it is back): degraded, never not-ready.
    ready: async () => ({ bus: await busReadiness(bus) }),
    consoleDir: config.consoleDir,
    mcp: async (req, res, body, client) => (await (mcp ??= import('@assay/mcp'))).handleMcpHttpRequest(req, res, body, client),
  });
  const server = listenUntilStopped(app, {
    port: config.port,
    host: config.host,
    logger,
    listening: 'gateway listening',
    fields: { upstreams: config.upstreams },
    stop: async () => {
      await subscription.close().catch(() => undefined);
      await authenticator.close();
      await bus.stop();
      redis?.disconnect();
      await dispatcher.close();
    },
  });
  server.requestTimeout = 0; // sync executions and SSE streams outlive node's default
}

/**
 * A Redis client for the shared rate-limit counters. Commands fail at once
 * while it is disconnected (no offline queue, 1 s command timeout), so a
 * Redis outage never holds a request: the limiter counts in process
 * meanwhile. It reconnects by itself; a start without Redis is not fatal.
 */
async function connectRedis(url: string, logger: ReturnType<typeof createLogger>): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 1000 });
  let lastError = 0;
  redis.on('error', (err) => {
    if (Date.now() - lastError < 30_000) return;
    lastError = Date.now();
    logger.warn({ err: err.message }, 'redis unreachable; rate limits count in this process until it is back');
  });
  redis.on('ready', () => logger.info('redis connected: rate-limit counters are shared'));
  await redis.connect().catch(() => undefined);
  return redis;
}

startMain(main);
