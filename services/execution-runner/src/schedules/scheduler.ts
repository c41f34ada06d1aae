import type { Plan } from '@assay/principal';
import type { Kysely } from 'kysely';
import { enqueueEvents } from '@assay/bus';
import { withTransaction } from '@assay/db';
import { AppError } from '@assay/http';
import { DueScheduler, type DueOutcome } from '@assay/runtime';
import type { Logger } from '@assay/logger';
import type { AuthClient } from '../clients/auth.client.js';
import type { TestCaseClient } from '../clients/test-case.client.js';
import type { ExecutionDatabase, ScheduleRow } from '../db/database.js';
import { insertExecution, prepareRun, type RunRequest } from '../executions/executions.service.js';
import { catchUp, nextOccurrence } from '@assay/contracts';
import { claimDueSchedule, recordRun, updateSchedule } from './schedules.repository.js';

export interface SchedulerOptions {
  db: Kysely<ExecutionDatabase>;
  schema: string;
  testCases: TestCaseClient;
  /** Asked before each run for the plan's API access and used-up quotas; without it nothing is checked. */
  auth?: AuthClient;
  logger: Logger;
  /** How often due schedules are looked for (ms). */
  intervalMs: number;
  /** The time; tests move it. */
  now?: () => Date;
}

type Outcome = { status: 'started'; executionId: string } | { status: 'skipped'; reason: string } | { status: 'disabled'; reason: string } | { status: 'retry' };

/**
 * Fires due schedules. Every replica may run one: a schedule is claimed with
 * `FOR UPDATE SKIP LOCKED`, and its execution, its `test.plan.scheduled`
 * event, its occurrence row (primary key: schedule and occurrence) and its
 * next run time commit in one transaction, so each occurrence starts exactly
 * one execution. Occurrences missed while no scheduler ran become one run on
 * recovery (for the latest of them), never a burst; the event counts them.
 */
export class Scheduler extends DueScheduler {
  constructor(private readonly o: SchedulerOptions) {
    super({ name: 'scheduler tick', what: 'scheduled occurrence', intervalMs: o.intervalMs, logger: o.logger });
  }

  // With auth or test-case down (retry) the pass ends: every schedule needs them. A schedule whose
  // occurrence throws is rolled back and stepped over, so the schedules due behind it still fire.
  protected async fire(skip: readonly string[], claimed: (id: string) => void): Promise<DueOutcome> {
    const status = await this.fireOne(skip, claimed);
    return status === 'none' ? 'none' : status === 'retry' ? 'stop' : 'done';
  }

  private async fireOne(skip: readonly string[], claimed: (id: string) => void): Promise<Outcome['status'] | 'none'> {
    const now = this.o.now?.() ?? new Date();
    return withTransaction(this.o.db, async (trx) => {
      const schedule = await claimDueSchedule(trx, now, skip);
      if (!schedule) return 'none' as const;
      claimed(schedule.id);
      const { latest, missed } = catchUp(schedule.cron, schedule.timezone, schedule.next_run_at!, now);
      const next = nextOccurrence(schedule.cron, schedule.timezone, now);
      const outcome = await this.decide(trx, schedule, latest, missed, next);
      if (outcome.status === 'retry') return 'retry' as const;
      const reason = outcome.status === 'started' ? null : outcome.reason;
      const fresh = await recordRun(trx, {
        schedule_id: schedule.id,
        scheduled_for: latest,
        status: outcome.status === 'started' ? 'started' : 'skipped',
        execution_id: outcome.status === 'started' ? outcome.executionId : null,
        reason,
        missed_occurrences: missed,
      });
      if (!fresh) throw new Error(`occurrence ${latest.toISOString()} of schedule ${schedule.id} was handled twice`);
      await updateSchedule(trx, schedule.id, {
        next_run_at: outcome.status === 'disabled' ? null : next,
        ...(outcome.status === 'disabled' ? { enabled: false } : {}),
        last_run_at: now,
        last_error: reason,
        ...(outcome.status === 'started' ? { last_execution_id: outcome.executionId } : {}),
      });
      if (outcome.status !== 'started') this.o.logger.info({ schedule: schedule.id, reason }, 'scheduled occurrence started no execution');
      return outcome.status;
    });
  }

  /** Starts the occurrence's execution inside the claim transaction, or says why not. */
  private async decide(trx: Kysely<ExecutionDatabase>, schedule: ScheduleRow, scheduledFor: Date, missed: number, next: Date | null): Promise<Outcome> {
    // Without auth to ask, artifacts get the shortest paid history period.
    let plan = 'starter';
    if (this.o.auth) {
      let entitlements;
      try {
        entitlements = await this.o.auth.entitlements(schedule.org_id);
      } catch (err) {
        this.o.logger.warn({ err, schedule: schedule.id }, 'auth unreachable; the schedule fires once it answers');
        return { status: 'retry' };
      }
      if (!entitlements) return { status: 'disabled', reason: 'The organization no longer exists' };
      if (entitlements.status !== 'active') return { status: 'skipped', reason: `The organization is ${entitlements.status}` };
      if (!entitlements.api_access) return { status: 'skipped', reason: `The ${entitlements.plan} plan has no API access` };
      plan = entitlements.plan;
      const used = entitlements.quotas_exceeded.find((q) => q.quota === 'executions' || q.quota === 'browser_minutes');
      if (used) return { status: 'skipped', reason: `Monthly quota of ${used.quota.replace('_', ' ')} exceeded (${used.used} of ${used.limit} ${used.unit}); it resets at ${used.resets_at}` };
    }
    const req: RunRequest = {
      test_plan_id: schedule.test_plan_id,
      project_id: schedule.project_id,
      ...(schedule.environment ? { environment: schedule.environment } : {}),
      variables: schedule.variables,
    };
    let run;
    try {
      run = await prepareRun(this.o.testCases, schedule.org_id, req);
    } catch (err) {
      if (err instanceof AppError && err.status === 404) return { status: 'disabled', reason: 'The test plan no longer exists' };
      if (err instanceof AppError && err.status === 400) return { status: 'skipped', reason: err.message };
      this.o.logger.warn({ err, schedule: schedule.id }, 'test-case unreachable; the schedule fires once it answers');
      return { status: 'retry' };
    }
    const execution = await insertExecution(trx, this.o.schema, schedule.org_id, plan as Plan, run, req);
    await enqueueEvents(trx, this.o.schema, [
      {
        event: 'test.plan.scheduled',
        organization_id: schedule.org_id,
        project_id: execution.project_id,
        key: execution.id,
        data: {
          execution_id: execution.id,
          schedule: {
            id: schedule.id,
            cron: schedule.cron,
            timezone: schedule.timezone,
            environment: schedule.environment,
            scheduled_for: scheduledFor.toISOString(),
            missed_occurrences: missed,
            next_run_at: next?.toISOString() ?? null,
          },
          test_plan: { id: execution.test_plan_id, name: execution.test_plan_name, project_id: execution.project_id },
        },
      },
    ]);
    return { status: 'started', executionId: execution.id };
  }
}
