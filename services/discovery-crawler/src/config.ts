import { readCommonConfig, readConfig, type CommonConfig, type Env } from '@assay/config';

export interface DiscoveryConfig extends CommonConfig {
  schema: string;
  testCaseUrl: string;
  chromiumPath: string;
  /** false: API only, no crawling in this process. */
  crawlerEnabled: boolean;
  /** Sessions one process crawls at once. */
  sessions: number;
  /** Pages of one session loaded at once (each in its own reused tab). */
  pagesInParallel: number;
  navigationTimeoutMs: number;
  leaseSeconds: number;
  /** Targets on loopback addresses (localhost, 127.0.0.0/8, ::1) are allowed. */
  allowLoopback: boolean;
  /** Targets on private, link-local and other non-public addresses are allowed. */
  allowPrivate: boolean;
}

export function loadConfig(env: Env): DiscoveryConfig {
  return readConfig(env, (r) => ({
    ...readCommonConfig(r, 'discovery-crawler', 8084),
    schema: 'discovery',
    testCaseUrl: r.url('TEST_CASE_URL'),
    chromiumPath: r.string('CHROMIUM_PATH', { default: '/usr/bin/chromium' }),
    crawlerEnabled: r.bool('CRAWLER_ENABLED', { default: true }),
    sessions: r.int('CRAWLER_SESSIONS', { default: 2, min: 1, max: 16 }),
    pagesInParallel: r.int('CRAWLER_PAGES_IN_PARALLEL', { default: 4, min: 1, max: 16 }),
    navigationTimeoutMs: r.int('NAVIGATION_TIMEOUT_MS', { default: 15_000, min: 1000, max: 300_000 }),
    leaseSeconds: r.int('CRAWLER_LEASE_SECONDS', { default: 30, min: 2, max: 600 }),
    allowLoopback: r.bool('DISCOVERY_ALLOW_LOOPBACK', { default: false }),
    allowPrivate: r.bool('DISCOVERY_ALLOW_PRIVATE', { default: false }),
  }));
}
