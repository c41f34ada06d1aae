import type { Kysely } from 'kysely';
import type { Logger } from '@assay/logger';
import { analyseExecution, PermanentAnalysisError, type AnalyzerDeps } from '../analysis/analyzer.js';
import { claimAnalysis, renewAnalysisLease, retryOrFail } from '../analysis/analysis.repository.js';
import type { DiscoveryClient } from '../clients/discovery.client.js';
import type { AnalysisDatabase } from '../db/database.js';
import { enrich } from '../discovery/enrich.js';
import { claimEnrichment, finishEnrichment, retryEnrichment } from '../discovery/enrichment.repository.js';
import type { LlmClient } from '../llm/llm.client.js';

export interface WorkerOptions extends AnalyzerDeps {
  db: Kysely<AnalysisDatabase>;
  logger: Logger;
  /** Closes what the verifier opened (its browser) when the worker stops. */
  closeBrowser?: () => Promise<void>;
  discovery?: DiscoveryClient;
  llm?: LlmClient;
  concurrency: number;
  leaseSeconds: number;
  workerId: string;
  /** How often to look for due work when nothing wakes the worker (ms). */
  pollMs?: number;
}

const MAX_ATTEMPTS = 5;

/**
 * Takes due analyses (and discovery enrichments) from the database under
 * leases, so several processes share the work and a dead one's work is taken
 * up again when its lease runs out. Intake wakes it; a poll covers the rest.
 */
export class AnalysisWorker {
  private timer: NodeJS.Timeout | undefined;
  private running = 0;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly o: WorkerOptions) {}

  start(): void {
    this.schedule(0);
  }

  /** Work is due now. */
  kick(): void {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fill(), ms);
    this.timer.unref();
  }

  private async fill(): Promise<void> {
    while (!this.stopped && this.running < this.o.concurrency) {
      const took = await this.takeOne().catch((err) => {
        this.o.logger.warn({ err }, 'could not claim analysis work');
        return false;
      });
      if (!took) break;
    }
    this.schedule(this.o.pollMs ?? 1000);
  }

  private async takeOne(): Promise<boolean> {
    const { db, workerId, leaseSeconds } = this.o;
    const analysis = await claimAnalysis(db, workerId, leaseSeconds);
    if (analysis) {
      this.track(async () => {
        let held = true;
        const renew = setInterval(() => {
          void renewAnalysisLease(db, analysis.id, workerId, leaseSeconds)
            .then((ok) => {
              if (!ok) held = false;
            })
            .catch(() => undefined);
        }, (leaseSeconds * 1000) / 3);
        try {
          const done = await analyseExecution(this.o, analysis, workerId, () => held && !this.stopped);
          this.o.logger.info({ execution: analysis.id }, done ? 'failure analysis done' : 'the execution is not over yet; waiting for its end');
        } catch (err) {
          const permanent = err instanceof PermanentAnalysisError;
          this.o.logger.warn({ err, execution: analysis.id, attempt: analysis.attempts }, permanent ? 'failure analysis impossible' : 'failure analysis failed; will retry');
          await retryOrFail(db, analysis.id, workerId, err instanceof Error ? err.message : String(err), permanent ? 0 : MAX_ATTEMPTS, Math.min(300, 5 * 2 ** analysis.attempts)).catch(() => undefined);
        } finally {
          clearInterval(renew);
        }
      });
      return true;
    }
    if (!this.o.discovery) return false;
    const enrichment = await claimEnrichment(db, workerId, leaseSeconds);
    if (!enrichment) return false;
    this.track(async () => {
      try {
        const session = await this.o.discovery!.session(enrichment.org_id, enrichment.session_id);
        if (!session || !session.enable_ai_analysis) {
          await finishEnrichment(db, enrichment.session_id, workerId, 'skipped', null);
          return;
        }
        const result = await enrich(session, this.o.llm);
        await this.o.discovery!.storeEnrichment(enrichment.org_id, enrichment.session_id, result as unknown as Record<string, unknown>);
        await finishEnrichment(db, enrichment.session_id, workerId, 'completed', result as unknown as Record<string, unknown>);
        this.o.logger.info({ session: enrichment.session_id, prose: result.prose_source }, 'discovery session enriched');
      } catch (err) {
        this.o.logger.warn({ err, session: enrichment.session_id }, 'discovery enrichment failed; will retry');
        await retryEnrichment(db, enrichment.session_id, workerId, err instanceof Error ? err.message : String(err), MAX_ATTEMPTS, Math.min(300, 5 * 2 ** enrichment.attempts)).catch(() => undefined);
      }
    });
    return true;
  }

  private track(job: () => Promise<void>): void {
    this.running++;
    const p = job()
      .catch((err) => this.o.logger.error({ err }, 'analysis job crashed'))
      .finally(() => {
        this.running--;
        this.inFlight.delete(p);
        this.kick();
      });
    this.inFlight.add(p);
  }

  /** Stops taking work, waits (bounded) for what runs, closes the browser. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.race([Promise.all(this.inFlight), new Promise((r) => setTimeout(r, 5000).unref())]);
    await this.o.closeBrowser?.();
  }
}
