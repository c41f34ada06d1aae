import { startEmbeddedPostgres } from '@assay/embedded-pg';

/**
 * Runs embedded Postgres for the launcher in its own process group, so a
 * terminal's Ctrl-C reaches the launcher and the services but not Postgres:
 * the launcher stops Postgres last, once nothing uses it. Prints one JSON line
 * `{url, port}` when ready; stops on SIGTERM or when the launcher's pipe closes.
 */
const dataDir = process.env.PG_DATA_DIR;
if (!dataDir) {
  console.error('PG_DATA_DIR is required');
  process.exit(2);
}

const pg = await startEmbeddedPostgres({ dataDir, port: Number(process.env.PG_PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ url: pg.url, port: pg.port })}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await pg.stop().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
// The launcher died without stopping us (SIGKILL): do not outlive it.
process.stdin.on('end', () => void stop());
process.stdin.resume();
