import { readCommonConfig, readConfig, type CommonConfig, type Env } from '@assay/config';
import { readEgressSettings, type EgressSettings } from '@assay/egress';
import { DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { readStepTimeouts, type StepTimeouts } from '@assay/steps';

export interface AnalysisConfig extends CommonConfig, StepTimeouts {
  schema: string;
  executionRunnerUrl: string;
  testCaseUrl: string;
  /** Unset: discovery sessions are not enriched (enable_ai_analysis sessions stay pending). */
  discoveryCrawlerUrl?: string;
  chromiumPath: string;
  /** false: API and intake only; this process analyses nothing. */
  workerEnabled: boolean;
  /** Executions one process analyses at once. */
  concurrency: number;
  leaseSeconds: number;
  /** Re-run the failed test with the suggested selector against the live target (the second verification). */
  rerunEnabled: boolean;
  /** Re-runs per execution at most; the rest are reported as not verified. */
  maxRerunsPerExecution: number;
  /** How often due report schedules are looked for. */
  reportSchedulerIntervalMs: number;
  /** What verification re-runs may connect to (EGRESS_*, as for the runner). */
  egress: EgressSettings;
  /** A relocation model fitted on this installation's own sites (JSON, the shape of model.ts); unset: the checked-in one. */
  relocationModelPath?: string;
  /** An OpenAI-compatible endpoint for prose only (never for categories, scores or verification). */
  llm?: { url: string; model: string; apiKey?: string; timeoutMs: number };
}

export function loadConfig(env: Env): AnalysisConfig {
  return readConfig(env, (r) => {
    const llmUrl = r.optionalUrl('ANALYSIS_LLM_URL');
    const llmModel = r.optionalString('ANALYSIS_LLM_MODEL');
    const llmKey = r.optionalString('ANALYSIS_LLM_API_KEY');
    const llmTimeoutMs = r.int('ANALYSIS_LLM_TIMEOUT_MS', { default: 20_000, min: 1000, max: 300_000 });
    if (llmUrl && !llmModel) r.fail('ANALYSIS_LLM_MODEL is required when ANALYSIS_LLM_URL is set');
    const discovery = r.optionalUrl('DISCOVERY_CRAWLER_URL');
    const relocationModel = r.optionalString('ANALYSIS_RELOCATION_MODEL');
    return {
      ...readCommonConfig(r, 'analysis', 8085),
      schema: 'analysis',
      executionRunnerUrl: r.url('EXECUTION_RUNNER_URL'),
      testCaseUrl: r.url('TEST_CASE_URL'),
      ...(discovery ? { discoveryCrawlerUrl: discovery } : {}),
      chromiumPath: r.string('CHROMIUM_PATH', { default: DEFAULT_CHROMIUM_PATH }),
      workerEnabled: r.bool('ANALYSIS_WORKER_ENABLED', { default: true }),
      concurrency: r.int('ANALYSIS_CONCURRENCY', { default: 1, min: 1, max: 8 }),
      leaseSeconds: r.int('ANALYSIS_LEASE_SECONDS', { default: 60, min: 5, max: 3600 }),
      rerunEnabled: r.bool('ANALYSIS_RERUN_ENABLED', { default: true }),
      maxRerunsPerExecution: r.int('ANALYSIS_MAX_RERUNS', { default: 10, min: 0, max: 100 }),
      ...readStepTimeouts(r),
      reportSchedulerIntervalMs: r.int('REPORT_SCHEDULER_INTERVAL_MS', { default: 30_000, min: 100, max: 3_600_000 }),
      egress: readEgressSettings(r),
      ...(relocationModel ? { relocationModelPath: relocationModel } : {}),
      ...(llmUrl && llmModel ? { llm: { url: llmUrl, model: llmModel, ...(llmKey ? { apiKey: llmKey } : {}), timeoutMs: llmTimeoutMs } } : {}),
    };
  });
}
