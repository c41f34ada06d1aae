import { readConfig, readCommonConfig, type CommonConfig, type Env } from '@assay/config';
import type { ServiceName } from '@assay/contracts';
import { DEFAULT_CONSOLE_DIR } from './console/console.routes.js';

export type UpstreamName = Exclude<ServiceName, 'gateway'>;

export interface GatewayConfig extends CommonConfig {
  /** Base URL of each built service; a service without one answers 501. */
  upstreams: Partial<Record<UpstreamName, string>>;
  /** How long an authentication answer is reused (ms). */
  authCacheTtlMs: number;
  /** Connect timeout to services: past it the call gets 503 (ms). */
  upstreamConnectTimeoutMs: number;
  /** Longest wait for a service's response headers (ms); sync executions can take minutes. */
  upstreamResponseTimeoutMs: number;
  rateLimitsEnabled: boolean;
  /** Redis for rate-limit counters shared by every replica; unset: counters per process. */
  redisUrl: string | undefined;
  /** How often per-key usage is reported to auth (ms). */
  usageFlushMs: number;
  /** The built web console served at `/` (default: apps/console/dist of this checkout). */
  consoleDir: string;
}

export const UPSTREAM_ENV: Record<UpstreamName, string> = {
  auth: 'AUTH_URL',
  'test-case': 'TEST_CASE_URL',
  'execution-runner': 'EXECUTION_RUNNER_URL',
  'discovery-crawler': 'DISCOVERY_CRAWLER_URL',
  analysis: 'ANALYSIS_URL',
  'webhook-dispatcher': 'WEBHOOK_DISPATCHER_URL',
};

export function loadConfig(env: Env): GatewayConfig {
  return readConfig(env, (r) => {
    const upstreams: Partial<Record<UpstreamName, string>> = {};
    for (const [name, variable] of Object.entries(UPSTREAM_ENV) as Array<[UpstreamName, string]>) {
      const url = name === 'auth' ? r.url(variable) : r.optionalUrl(variable);
      if (url) upstreams[name] = url;
    }
    return {
      ...readCommonConfig(r, 'gateway', 8080),
      upstreams,
      authCacheTtlMs: r.int('AUTH_CACHE_TTL_MS', { default: 2000, min: 0, max: 4000 }),
      upstreamConnectTimeoutMs: r.int('UPSTREAM_CONNECT_TIMEOUT_MS', { default: 4000, min: 100, max: 5000 }),
      upstreamResponseTimeoutMs: r.int('UPSTREAM_RESPONSE_TIMEOUT_MS', { default: 30 * 60_000, min: 1000 }),
      rateLimitsEnabled: r.bool('RATE_LIMITS_ENABLED', { default: true }),
      redisUrl: r.optionalUrl('REDIS_URL'),
      usageFlushMs: r.int('USAGE_FLUSH_MS', { default: 1000, min: 50, max: 60_000 }),
      consoleDir: r.optionalString('CONSOLE_DIR') ?? DEFAULT_CONSOLE_DIR,
    };
  });
}
