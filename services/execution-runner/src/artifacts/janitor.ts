import type { Kysely } from 'kysely';
import type { Logger } from '@assay/logger';
import type { ExecutionDatabase } from '../db/database.js';
import { purgeExpiredArtifacts } from './artifacts.repository.js';

export interface ArtifactJanitor {
  /** Deletes every expired artifact now; the number deleted. */
  sweep(): Promise<number>;
  stop(): void;
}

const EVERY_MS = 10 * 60 * 1000;

/** Deletes expired screenshots and traces every ten minutes, a thousand at a time. */
export function startArtifactJanitor(db: Kysely<ExecutionDatabase>, logger: Logger): ArtifactJanitor {
  let running: Promise<number> | undefined;
  const sweep = () =>
    (running ??= (async () => {
      let total = 0;
      try {
        for (let n = await purgeExpiredArtifacts(db); n > 0; n = await purgeExpiredArtifacts(db)) total += n;
        if (total) logger.info({ artifacts: total }, 'deleted expired artifacts');
        return total;
      } finally {
        running = undefined;
      }
    })());
  const timer = setInterval(() => void sweep().catch((err) => logger.warn({ err }, 'artifact purge failed')), EVERY_MS);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
