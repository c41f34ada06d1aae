import { catchUp, nextOccurrence } from '@assay/contracts';
import { withTransaction } from '@assay/db';
import { AppError } from '@assay/http';
import { DueScheduler, type DueOutcome } from '@assay/runtime';
import type { AnalysisContext } from '../context.js';
import { claimDueReport, setScheduleState } from './reports.repository.js';
import { takeSnapshot } from './reports.service.js';

export interface ReportSchedulerOptions {
  /** How often due schedules are looked for (ms). */
  intervalMs: number;
  /** The time; tests move it. */
  now?: () => Date;
}

/**
 * Takes the snapshots of report schedules. Every replica may run one: a due
 * definition is claimed with `FOR UPDATE SKIP LOCKED`, and its snapshot, its
 * `report.snapshot.created` event and its next occurrence commit in one
 * transaction; the snapshot's (report, occurrence) key is unique besides.
 * Occurrences missed while no scheduler ran become one snapshot, for the
 * latest of them. A snapshot that cannot be computed (the runner or test-case
 * is down) is tried again at the next tick, while the reports due behind it go
 * on; a 400 (the period holds too many executions) or 404 is kept as the
 * schedule's `last_error` and the schedule moves on.
 */
export class ReportScheduler extends DueScheduler {
  constructor(
    private readonly ctx: AnalysisContext,
    private readonly o: ReportSchedulerOptions,
  ) {
    super({ name: 'report scheduler tick', what: 'scheduled report snapshot', intervalMs: o.intervalMs, logger: ctx.logger });
  }

  // A snapshot that throws is rolled back: its occurrence stays due for the next tick, and the reports due behind it still go now.
  protected async fire(skip: readonly string[], claimed: (id: string) => void): Promise<DueOutcome> {
    return (await this.claimAndTake(this.o.now?.() ?? new Date(), skip, claimed)) === 'none' ? 'none' : 'done';
  }

  private claimAndTake(now: Date, skip: readonly string[], claimed: (id: string) => void): Promise<'none' | 'taken' | 'failed'> {
    return withTransaction(this.ctx.db, async (trx) => {
      const report = await claimDueReport(trx, now, skip);
      if (!report) return 'none' as const;
      claimed(report.id);
      const cron = report.schedule_cron!;
      const timezone = report.schedule_timezone!;
      const { latest, missed } = catchUp(cron, timezone, report.next_snapshot_at!, now);
      const next = nextOccurrence(cron, timezone, now);
      try {
        await takeSnapshot(this.ctx, trx, report, { trigger: 'schedule', scheduledFor: latest, missed }, now);
      } catch (err) {
        // Only a refusal of the computation (before anything was written) moves the schedule on:
        // a period too large (400) or a project that is gone (404).
        if (!(err instanceof AppError && (err.status === 400 || err.status === 404))) throw err;
        await setScheduleState(trx, report.id, { next_snapshot_at: next, last_schedule_error: err.message });
        this.ctx.logger.info({ report: report.id, reason: err.message }, 'scheduled report snapshot refused');
        return 'failed' as const;
      }
      await setScheduleState(trx, report.id, { next_snapshot_at: next, last_snapshot_at: now, last_schedule_error: null });
      return 'taken' as const;
    });
  }
}
