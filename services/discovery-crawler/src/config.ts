import { readCommonConfig, readConfig, type CommonConfig, type Env } from '@assay/config';
import { readEgressSettings, type EgressSettings } from '@assay/egress';
import { DEFAULT_CHROMIUM_PATH } from '@assay/browser';

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
  exploreBudgetMs: number;
  /** The longest a page is waited on after load for its network and DOM to get still (single-page apps render late). */
  settleMs: number;
  /** What targets, their pages and robots.txt may connect to (EGRESS_*; DISCOVERY_ALLOW_LOOPBACK/_PRIVATE still honoured when those are unset). */
  egress: EgressSettings;
}

export function loadConfig(env: Env): DiscoveryConfig {
  return readConfig(env, (r) => ({
    ...readCommonConfig(r, 'discovery-crawler', 8084),
    schema: 'discovery',
    testCaseUrl: r.url('TEST_CASE_URL'),
    chromiumPath: r.string('CHROMIUM_PATH', { default: DEFAULT_CHROMIUM_PATH }),
    crawlerEnabled: r.bool('CRAWLER_ENABLED', { default: true }),
    sessions: r.int('CRAWLER_SESSIONS', { default: 2, min: 1, max: 16 }),
    pagesInParallel: r.int('CRAWLER_PAGES_IN_PARALLEL', { default: 4, min: 1, max: 16 }),
    navigationTimeoutMs: r.int('NAVIGATION_TIMEOUT_MS', { default: 15_000, min: 1000, max: 300_000 }),
    leaseSeconds: r.int('CRAWLER_LEASE_SECONDS', { default: 30, min: 2, max: 600 }),
    exploreBudgetMs: r.int('CRAWLER_EXPLORE_BUDGET_MS', { default: 15_000, min: 500, max: 120_000 }),
    settleMs: r.int('CRAWLER_SETTLE_MS', { default: 5000, min: 100, max: 60_000 }),
    egress: readEgressSettings(r, { loopback: 'DISCOVERY_ALLOW_LOOPBACK', private: 'DISCOVERY_ALLOW_PRIVATE' }),
  }));
}
