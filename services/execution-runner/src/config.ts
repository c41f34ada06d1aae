import { readCommonConfig, readConfig, type CommonConfig, type ConfigReader, type Env } from '@assay/config';
import { readEgressSettings, type EgressSettings } from '@assay/egress';
import { DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { readStepTimeouts, type StepTimeouts } from '@assay/steps';
import type { RecorderLimits } from './recordings/recordings.service.js';
import type { SuiteSettings } from './suites/suite-settings.js';

export interface ExecutionConfig extends CommonConfig, StepTimeouts {
  schema: string;
  testCaseUrl: string;
  /** Discovery-crawler, asked for a session's generated cases when a test run names one; unset: such runs answer 501. */
  discoveryUrl: string | undefined;
  chromiumPath: string;
  /** Test cases one process runs at once. */
  concurrency: number;
  /** Test cases of one execution a browser context serves, reset between them (1: a new context for every case). */
  contextMaxCases: number;
  /** false: API only, no browser work in this process. */
  runnerEnabled: boolean;
  leaseSeconds: number;
  /** Largest screenshot or trace stored, and bytes one organization may keep (ARTIFACT_MAX_BYTES, ARTIFACT_ORG_QUOTA_BYTES). */
  artifacts: { maxBytes: number; orgQuotaBytes: number };
  /** What test steps and their pages may connect to (EGRESS_*). */
  egress: EgressSettings;
  /** Auth, asked before each scheduled run for the plan's API access and quotas; unset: not checked. */
  authUrl: string | undefined;
  /** false: this process fires no schedules (another replica does). */
  schedulerEnabled: boolean;
  /** How often due schedules are looked for (ms). */
  schedulerIntervalMs: number;
  /** On SIGTERM, how long running executions may take to finish before they are stopped and put back in the queue. */
  shutdownGraceSeconds: number;
  /** Per-phase timings of each execution written here (`make bench BENCH_PROFILE=1`); unset: not gathered. */
  profileFile: string | undefined;
  /** Bounds of recordings (RECORDER_*). */
  recorder: RecorderLimits;
  /** Playwright suites (SUITE_*): the box, archive bounds, shards. */
  suites: Omit<SuiteSettings, 'policy'>;
  /** Suite shards one process runs at once (SUITE_SHARDS_PER_RUNNER). */
  suiteShardsPerRunner: number;
  /** false: this process takes no suite shards (SUITE_SHARDS_ENABLED, default RUNNER_ENABLED): the chart's suite-shard pods take them. */
  suiteShardsEnabled: boolean;
}

export function loadConfig(env: Env): ExecutionConfig {
  return readConfig(env, (r) => ({
    ...readCommonConfig(r, 'execution-runner', 8083),
    schema: 'execution',
    testCaseUrl: r.url('TEST_CASE_URL'),
    discoveryUrl: r.optionalUrl('DISCOVERY_CRAWLER_URL'),
    chromiumPath: r.string('CHROMIUM_PATH', { default: DEFAULT_CHROMIUM_PATH }),
    concurrency: r.int('RUNNER_CONCURRENCY', { default: 2, min: 1, max: 32 }),
    contextMaxCases: r.int('RUNNER_CONTEXT_MAX_CASES', { default: 50, min: 1, max: 10_000 }),
    runnerEnabled: r.bool('RUNNER_ENABLED', { default: true }),
    suiteShardsEnabled: r.bool('SUITE_SHARDS_ENABLED', { default: r.bool('RUNNER_ENABLED', { default: true }) }),
    ...readStepTimeouts(r),
    leaseSeconds: r.int('RUNNER_LEASE_SECONDS', { default: 30, min: 2, max: 600 }),
    artifacts: {
      maxBytes: r.int('ARTIFACT_MAX_BYTES', { default: 50 * 1024 * 1024, min: 1024, max: 1024 * 1024 * 1024 }),
      orgQuotaBytes: r.int('ARTIFACT_ORG_QUOTA_BYTES', { default: 10 * 1024 * 1024 * 1024, min: 1024 * 1024, max: Number.MAX_SAFE_INTEGER }),
    },
    egress: readEgressSettings(r),
    authUrl: r.optionalUrl('AUTH_URL'),
    schedulerEnabled: r.bool('SCHEDULER_ENABLED', { default: true }),
    schedulerIntervalMs: r.int('SCHEDULER_INTERVAL_MS', { default: 5000, min: 100, max: 60_000 }),
    shutdownGraceSeconds: r.int('SHUTDOWN_GRACE_SECONDS', { default: 30, min: 0, max: 86_400 }),
    profileFile: r.optionalString('RUNNER_PROFILE_FILE'),
    recorder: {
      perOrg: r.int('RECORDER_MAX_PER_ORG', { default: 2, min: 0, max: 100 }),
      perProcess: r.int('RECORDER_MAX_SESSIONS', { default: 4, min: 0, max: 100 }),
      idleSeconds: r.int('RECORDER_IDLE_SECONDS', { default: 300, min: 10, max: 86_400 }),
      maxSeconds: r.int('RECORDER_MAX_SECONDS', { default: 1800, min: 10, max: 86_400 }),
    },
    suites: readSuiteSettings(r, r.string('CHROMIUM_PATH', { default: DEFAULT_CHROMIUM_PATH })),
    suiteShardsPerRunner: r.int('SUITE_SHARDS_PER_RUNNER', { default: 1, min: 1, max: 16 }),
  }));
}

const MB = 1024 * 1024;

function readSuiteSettings(r: ConfigReader, chromiumPath: string): Omit<SuiteSettings, 'policy'> {
  return {
    box: {
      workDir: r.string('SUITE_WORK_DIR', { default: '/var/lib/assay/suites' }),
      chromiumPath,
      // The boxes' uids are drawn from this range: in a Kubernetes pod with its own user namespace only 0–65535 exist.
      uidRange: [r.int('SUITE_UID_MIN', { default: 200_000, min: 1000, max: 2_000_000_000 }), r.int('SUITE_UID_MAX', { default: 2_000_000_000, min: 1001, max: 2_000_000_000 })],
      limits: {
        cpuSeconds: r.int('SUITE_CPU_SECONDS', { default: 1800, min: 10, max: 86_400 }),
        addressSpaceBytes: r.int('SUITE_ADDRESS_SPACE_BYTES', { default: 2 ** 41, min: 2 ** 30, max: Number.MAX_SAFE_INTEGER }),
        fileSizeBytes: r.int('SUITE_FILE_SIZE_BYTES', { default: 512 * MB, min: MB, max: Number.MAX_SAFE_INTEGER }),
        processes: r.int('SUITE_PROCESSES', { default: 512, min: 16, max: 100_000 }),
        shmBytes: r.int('SUITE_SHM_BYTES', { default: 256 * MB, min: 16 * MB, max: Number.MAX_SAFE_INTEGER }),
        outputBytes: r.int('SUITE_OUTPUT_BYTES', { default: 4 * MB, min: 64 * 1024, max: 1024 * MB }),
      },
    },
    archive: {
      maxBytes: r.int('SUITE_ARCHIVE_MAX_BYTES', { default: 50 * MB, min: 1024, max: 1024 * MB }),
      maxUnpackedBytes: r.int('SUITE_UNPACKED_MAX_BYTES', { default: 300 * MB, min: MB, max: 8 * 1024 * MB }),
      maxFiles: r.int('SUITE_MAX_FILES', { default: 30_000, min: 10, max: 1_000_000 }),
    },
    listTimeoutMs: r.int('SUITE_LIST_TIMEOUT_SECONDS', { default: 120, min: 5, max: 3600 }) * 1000,
    workers: r.int('SUITE_WORKERS', { default: 1, min: 1, max: 16 }),
    maxShards: r.int('SUITE_MAX_SHARDS', { default: 16, min: 1, max: 256 }),
    batchMinMs: r.int('SUITE_BATCH_MIN_SECONDS', { default: 15, min: 0, max: 3600 }) * 1000,
    // Only root (or a user namespace's root) makes the box: elsewhere uploads are listed by a suite-shard process.
    listOnUpload: r.bool('SUITE_LIST_ON_UPLOAD', { default: process.getuid?.() === 0 }),
  };
}
