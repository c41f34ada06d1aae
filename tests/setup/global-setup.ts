import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '@assay/embedded-pg';

// One Postgres for the whole run; each test file makes its own database on it.
// TEST_DATABASE_URL set: use that server instead and start nothing.
declare global {
  var __ASSAY_PG__: EmbeddedPostgres | undefined;
}

export default async function globalSetup(globalConfig: { selectProjects?: string[] }): Promise<void> {
  if (process.env.TEST_DATABASE_URL) return;
  const projects = globalConfig.selectProjects;
  if (projects && projects.length > 0 && projects.every((p) => p === 'unit')) return;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'assay-test-pg-'));
  const pg = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  globalThis.__ASSAY_PG__ = pg;
  process.env.TEST_DATABASE_URL = pg.url;
}
