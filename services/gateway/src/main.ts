import { Agent } from 'undici';
import { createBus } from '@assay/bus';
import { ConfigError } from '@assay/config';
import { answerClientErrorsWithJson } from '@assay/http';
import { createLogger } from '@assay/logger';
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
  const bus = createBus({ kind: config.bus, databaseUrl: config.databaseUrl, kafkaBrokers: config.kafkaBrokers, clientId: 'assay-gateway', logger });
  await bus.start();
  const subscription = await subscribeToAuthEvents(bus, authenticator);

  const app = buildApp({
    logger,
    authenticator,
    dispatcher,
    upstreams: config.upstreams,
    internalTokenSecret: config.internalTokenSecret,
    publicBaseUrl: config.publicBaseUrl,
    rateLimitsEnabled: config.rateLimitsEnabled,
    upstreamResponseTimeoutMs: config.upstreamResponseTimeoutMs,
    ready: async () => ({ bus: await bus.isHealthy() }),
  });
  const server = app.listen(config.port, config.host, () => logger.info({ port: config.port, upstreams: config.upstreams }, 'gateway listening'));
  server.requestTimeout = 0; // sync executions and SSE streams outlive node's default
  answerClientErrorsWithJson(server);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), 10_000).unref();
    server.close();
    await subscription.close().catch(() => undefined);
    await authenticator.close();
    await bus.stop();
    await dispatcher.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
