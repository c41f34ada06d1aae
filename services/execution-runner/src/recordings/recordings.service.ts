import { randomUUID } from 'node:crypto';
import type { BrowserPool } from '@assay/browser';
import { AppError, conflict, isUuid, notFound, serviceUnavailable } from '@assay/http';
import type { Logger } from '@assay/logger';
import type { TestCaseClient } from '../clients/test-case.client.js';
import { RecordingInputError, RecordingSession, type InputResult, type RecordingInput } from './recording.session.js';

/** Bounds of recordings (RECORDER_*). */
export interface RecorderLimits {
  /** Open recordings one organization may have at once. */
  perOrg: number;
  /** Open recordings one runner process holds at once (each is a browser context). */
  perProcess: number;
  /** A recording without input this long is closed. */
  idleSeconds: number;
  /** A recording is closed this long after it opened, whatever happens. */
  maxSeconds: number;
}

export const DEFAULT_RECORDER_LIMITS: RecorderLimits = { perOrg: 2, perProcess: 4, idleSeconds: 300, maxSeconds: 1800 };

/**
 * The open recordings of this process, by id: each a browser context of the
 * runner's own Chromium. Scoped to the organization that opened it (another
 * one's id is a 404), bounded per organization and per process, and closed
 * when stopped, idle, too old, or when the process stops.
 */
export class RecordingManager {
  private readonly sessions = new Map<string, RecordingSession>();
  /** Opens under way, counted against the limits before their context exists. */
  private readonly opening = new Map<string, string>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly o: { browsers: BrowserPool; testCases: TestCaseClient; logger: Logger; limits: RecorderLimits; navigationTimeoutMs: number },
  ) {
    this.sweeper = setInterval(() => void this.sweep(), 5000);
    this.sweeper.unref();
  }

  private now(): number {
    return Date.now();
  }

  /**
   * Opens a recording of the project's app (its base URL, or an environment's) at `start_path`.
   * @throws AppError 404 (project, environment), 409 (too many open), 503 (test-case down)
   */
  async open(orgId: string, body: { project_id: string; environment?: string; start_path?: string }): Promise<RecordingSession> {
    if (!isUuid(body.project_id)) throw notFound('Project');
    const open = [...this.sessions.values()].filter((s) => s.orgId === orgId).length + [...this.opening.values()].filter((o) => o === orgId).length;
    if (open >= this.o.limits.perOrg) throw conflict(`This organization already has ${open} open recording${open === 1 ? '' : 's'} (at most ${this.o.limits.perOrg}): stop one first`);
    if (this.sessions.size + this.opening.size >= this.o.limits.perProcess) throw serviceUnavailable('Every recording slot of this runner is in use: try again in a few minutes');
    const project = await this.o.testCases.project(orgId, body.project_id);
    let baseUrl = project.base_url;
    if (body.environment !== undefined && body.environment !== 'default') {
      const env = project.environments?.[body.environment];
      if (!env) throw new AppError('validation_error', `The project has no environment "${body.environment}"`, [{ field: 'environment', message: `is not an environment of the project (${Object.keys(project.environments ?? {}).join(', ') || 'none'})` }]);
      baseUrl = env;
    }
    const id = randomUUID();
    this.opening.set(id, orgId);
    try {
      const session = await RecordingSession.open(this.o.browsers, { id, orgId, projectId: project.id, baseUrl, startPath: body.start_path ?? '/', navigationTimeoutMs: this.o.navigationTimeoutMs }).catch((err: unknown) => {
        if (err instanceof RecordingInputError) throw new AppError('validation_error', err.message, [{ field: 'start_path', message: err.message }]);
        throw err;
      });
      this.sessions.set(id, session);
      this.o.logger.info({ recording: id, org: orgId, project: project.id }, 'recording opened');
      return session;
    } finally {
      this.opening.delete(id);
    }
  }

  /** @throws AppError 404 for an unknown id or another organization's. */
  get(orgId: string, id: string): RecordingSession {
    const s = isUuid(id) ? this.sessions.get(id) : undefined;
    if (!s || s.orgId !== orgId) throw notFound('Recording');
    return s;
  }

  list(orgId: string): RecordingSession[] {
    return [...this.sessions.values()].filter((s) => s.orgId === orgId);
  }

  /** @throws AppError 400 for an input the page refuses, 404 for an unknown recording. */
  async input(orgId: string, id: string, input: RecordingInput): Promise<InputResult> {
    const s = this.get(orgId, id);
    try {
      return await s.input(input);
    } catch (err) {
      if (err instanceof RecordingInputError) throw new AppError('validation_error', err.message, [{ field: 'type', message: err.message }]);
      if (s.ended) throw notFound('Recording');
      throw err;
    }
  }

  async stop(orgId: string, id: string, reason = 'stopped'): Promise<RecordingSession> {
    const s = this.get(orgId, id);
    await this.close(s, reason);
    return s;
  }

  expiresAt(s: RecordingSession): Date {
    return new Date(Math.min(s.createdAt.getTime() + this.o.limits.maxSeconds * 1000, s.lastInputAt + this.o.limits.idleSeconds * 1000));
  }

  private async close(s: RecordingSession, reason: string): Promise<void> {
    this.sessions.delete(s.id);
    await s.close(reason);
    this.o.logger.info({ recording: s.id, org: s.orgId, reason }, 'recording closed');
  }

  /** Closes the recordings past their time at `now`, and those whose page went away. */
  async sweep(now = this.now()): Promise<void> {
    for (const s of [...this.sessions.values()]) {
      if (s.ended) await this.close(s, s.ended);
      else if (now - s.createdAt.getTime() >= this.o.limits.maxSeconds * 1000) await this.close(s, `the recording reached its ${this.o.limits.maxSeconds} s limit`);
      else if (now - s.lastInputAt >= this.o.limits.idleSeconds * 1000) await this.close(s, `no input for ${this.o.limits.idleSeconds} s`);
    }
  }

  /** Closes every recording (the process is stopping). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((s) => this.close(s, 'the runner is shutting down')));
  }
}
