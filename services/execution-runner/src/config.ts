import { readCommonConfig, readConfig, type CommonConfig, type Env } from '@assay/config';

export interface ExecutionConfig extends CommonConfig {
  schema: string;
  testCaseUrl: string;
  chromiumPath: string;
  /** Test cases one process runs at once. */
  concurrency: number;
  /** false: API only, no browser work in this process. */
  runnerEnabled: boolean;
  stepTimeoutMs: number;
  navigationTimeoutMs: number;
  leaseSeconds: number;
  /** Largest file `POST /api/v1/artifacts` takes. */
  artifactMaxBytes: number;
}

export function loadConfig(env: Env): ExecutionConfig {
  return readConfig(env, (r) => ({
    ...readCommonConfig(r, 'execution-runner', 8083),
    schema: 'execution',
    testCaseUrl: r.url('TEST_CASE_URL'),
    chromiumPath: r.string('CHROMIUM_PATH', { default: '/usr/bin/chromium' }),
    concurrency: r.int('RUNNER_CONCURRENCY', { default: 2, min: 1, max: 32 }),
    runnerEnabled: r.bool('RUNNER_ENABLED', { default: true }),
    stepTimeoutMs: r.int('STEP_TIMEOUT_MS', { default: 5000, min: 100, max: 300_000 }),
    navigationTimeoutMs: r.int('NAVIGATION_TIMEOUT_MS', { default: 15_000, min: 1000, max: 300_000 }),
    leaseSeconds: r.int('RUNNER_LEASE_SECONDS', { default: 30, min: 2, max: 600 }),
    artifactMaxBytes: r.int('ARTIFACT_MAX_BYTES', { default: 10 * 1024 * 1024, min: 1024, max: 100 * 1024 * 1024 }),
  }));
}
