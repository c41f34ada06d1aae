import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { BrowserContext, Page } from 'playwright-core';
import type { ScreenshotStore } from '@assay/steps';
import type { ExecutionDatabase, ExecutionRow } from '../db/database.js';
import { ArtifactRefusedError, storeArtifact, type ArtifactLimits } from '../artifacts/artifacts.repository.js';
import { findBaselineImage, insertFirstBaseline } from '../screenshots/baselines.repository.js';
import type { RunVariables } from './run-variables.js';
import { maskTrace } from './run-variables.js';

/**
 * Where one case's screenshots, screenshot baselines and trace are stored.
 * A cap that refuses an artifact does not fail the case: the refusal is kept
 * (`notStored`) and the result says what is missing and why. A step's own
 * `screenshot` is the exception: it asked for the image, so it fails.
 */
export class ArtifactSink {
  /** Why each refused artifact was not stored. */
  readonly notStored: string[] = [];
  /** assert_screenshot's first captures: stored as baselines only if the case passes. */
  private readonly firstBaselines: Array<{ stepId: string; browser: string; viewport: string; name?: string; png: Buffer }> = [];
  /** The case's `assert_screenshot` baselines, as the step engine asks for them. */
  readonly baselines: ScreenshotStore;

  constructor(
    private readonly db: Kysely<ExecutionDatabase>,
    private readonly limits: ArtifactLimits,
    private readonly execution: ExecutionRow,
    private readonly testCaseId: string,
  ) {
    const { org_id } = execution;
    this.baselines = {
      baseline: (k) => findBaselineImage(db, { org_id, test_case_id: testCaseId, step_id: k.stepId, browser: k.browser, viewport: k.viewport }),
      keepAsBaseline: async (k, png) => void this.firstBaselines.push({ ...k, png }),
      saveMismatch: async ({ actual, expected, diff }) => {
        // A refused image leaves its id out; the comparison still fails with its numbers.
        const [a, e, d] = [await this.keepScreenshot(actual), await this.keepScreenshot(expected), await this.keepScreenshot(diff)];
        return { ...(a ? { actual_artifact_id: a } : {}), ...(e ? { expected_artifact_id: e } : {}), ...(d ? { diff_artifact_id: d } : {}) };
      },
    };
  }

  /** Stores a PNG the case asked for. @throws ArtifactRefusedError when a cap refuses it. */
  saveScreenshot(png: Buffer): Promise<string> {
    return this.store('screenshot', 'image/png', png);
  }

  /** Stores a PNG; a refusal is noted and answers undefined. */
  keepScreenshot(png: Buffer): Promise<string | undefined> {
    return this.saveScreenshot(png).catch(this.refused);
  }

  /** The page as it is now, stored (undefined when it could not be taken or was refused). */
  async pageScreenshot(page: Page): Promise<string | undefined> {
    return page
      .screenshot({ type: 'png', timeout: 5000 })
      .then((png) => this.keepScreenshot(png))
      .catch(() => undefined);
  }

  /** Stores the first captures of a passing case as its baselines (a concurrent run that stored one first wins). */
  async keepFirstBaselines(): Promise<void> {
    const e = this.execution;
    for (const b of this.firstBaselines) {
      await insertFirstBaseline(this.db, this.limits, {
        org_id: e.org_id,
        project_id: e.project_id,
        test_case_id: this.testCaseId,
        step_id: b.stepId,
        name: b.name ?? null,
        browser: b.browser,
        viewport: b.viewport,
        png: b.png,
        origin: 'first_run',
        source_execution_id: e.id,
      }).catch(this.refused);
    }
  }

  /** Stores the case's Playwright trace, secrets masked, when the run's `trace` mode keeps it; the artifact id. */
  async saveTrace(context: BrowserContext, status: 'passed' | 'failed', vars: RunVariables): Promise<string | undefined> {
    const mode = this.execution.trace;
    if (mode === 'off') return undefined;
    if (mode === 'retain-on-failure' && status === 'passed') {
      await context.tracing.stop();
      return undefined;
    }
    // Playwright writes traces only to a file.
    const file = path.join(tmpdir(), `assay-trace-${randomUUID()}.zip`);
    try {
      await context.tracing.stop({ path: file });
      const data = await readFile(file);
      return await this.store('trace', 'application/zip', maskTrace(data, vars.mask)).catch(this.refused);
    } finally {
      await rm(file, { force: true });
    }
  }

  private store(kind: 'screenshot' | 'trace', content_type: string, data: Buffer): Promise<string> {
    const e = this.execution;
    return storeArtifact(this.db, this.limits, { org_id: e.org_id, execution_id: e.id, kind, content_type, data, keep_days: e.history_days });
  }

  private readonly refused = (err: unknown): undefined => {
    if (!(err instanceof ArtifactRefusedError)) throw err;
    this.notStored.push(err.message);
    return undefined;
  };
}
