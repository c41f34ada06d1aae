import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './versions.js';

/**
 * The previous release, as the upgrade tests need it on a clean clone with no
 * git history: its version and commit, its event envelope's fields, every
 * event type's topic and data schema, and its migrations (id and file hash) by
 * service. Written by `make upgrade-snapshot [FROM=ref]` (snapshot.ts) into
 * deploy/upgrade/previous-release.json.
 */
export interface PreviousRelease {
  version: string;
  commit: string;
  /** The envelope fields its consumers read (libs/bus EventEnvelope). */
  envelope: { required: string[]; optional: string[] };
  events: Record<string, { topic: string; visibility: string; data: Record<string, unknown> }>;
  migrations: Record<string, Record<string, string>>;
}

export const SNAPSHOT_FILE = path.join('deploy', 'upgrade', 'previous-release.json');
/** The previous release's chart (helm/assay as it shipped). */
export const PREVIOUS_CHART_DIR = path.join('deploy', 'upgrade', 'previous-chart');

export function previousRelease(root = REPO_ROOT): PreviousRelease {
  return JSON.parse(readFileSync(path.join(root, SNAPSHOT_FILE), 'utf8')) as PreviousRelease;
}

/** The commit of the newest released section of CHANGELOG.md (`## x.y.z (date, commit <sha>)`): the drill's and the snapshot's default FROM. */
export function lastReleaseCommit(root = REPO_ROOT): { version: string; commit: string } {
  const changelog = readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
  const m = /^## \[?(\d+\.\d+\.\d+)\]? \([^)]*commit ([0-9a-f]{7,40})\)/m.exec(changelog);
  if (!m) throw new Error('CHANGELOG.md names no released version with its commit ("## x.y.z (date, commit <sha>)")');
  return { version: m[1]!, commit: m[2]! };
}
