import type { EgressPolicy } from '@assay/egress';
import type { ArchiveLimits } from './archive.js';
import type { BoxSettings } from './sandbox.js';

/** What suites need from the runner's configuration (SUITE_*). */
export interface SuiteSettings {
  box: BoxSettings;
  archive: ArchiveLimits;
  /** Bound of the `--list` an upload runs (ms). */
  listTimeoutMs: number;
  /** Playwright workers per shard. */
  workers: number;
  /** Most shards a run may ask for. */
  maxShards: number;
  /** Least expected work (ms) a shard takes from the queue at once: each batch starts Playwright Test anew. */
  batchMinMs: number;
  policy: EgressPolicy;
  /**
   * Whether an upload is listed in a box by the runner that receives it
   * (SUITE_LIST_ON_UPLOAD, default: this process is root, so it can make the
   * box). false: the version is stored as `listing` and a suite-shard
   * process lists it (the chart's runner pods cannot make the box).
   */
  listOnUpload: boolean;
}
