import createClient, { type Client } from 'openapi-fetch';
import { AssayApiError } from './errors.js';
import type { components, paths } from './generated/openapi.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import { parseEventStream, type ServerSentEvent } from './sse.js';

/** Every schema of the OpenAPI document, by name: `Schemas['TestCase']`. */
export type Schemas = components['schemas'];

export interface AssayClientOptions {
  /** The gateway's base URL, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** A service key (`service_sk_...`), an `sk_live_` key or a session token; sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Automatic retry of 429 and 503 answers; `false` turns it off. */
  retry?: RetryOptions | false;
  /** The fetch to use (default: global fetch). */
  fetch?: (input: Request) => Promise<Response>;
  /** Sent as `user-agent` (default `assay-client`). */
  userAgent?: string;
}

/** Events of `GET /api/v1/executions/{id}/stream` (the execution-runner's README). */
export type ExecutionEvent =
  | { event: 'status'; id?: string; data: { execution_id: string; status: string; total?: number; started_at?: string; reason?: string } }
  | { event: 'test_started'; id?: string; data: { execution_id: string; test_id: string; name: string; position: number } }
  | {
      event: 'step_finished';
      id?: string;
      data: { execution_id: string; test_id: string; step_id: string; name: string; status: 'passed' | 'failed' | 'skipped'; duration_ms: number; error?: string };
    }
  | {
      event: 'test_finished';
      id?: string;
      data: { execution_id: string; test_id: string; name: string; status: 'passed' | 'failed' | 'skipped'; duration_ms: number; error?: string; screenshot?: string; trace?: string };
    }
  | {
      event: 'completed';
      id?: string;
      data: { execution_id: string; status: string; passed_tests: number; failed_tests: number; skipped_tests?: number; total_tests: number; error?: string; cancellation_reason?: string };
    };

/** Events of `GET /api/v1/discovery/{id}/stream` (the discovery-crawler's README). */
export type DiscoveryEvent =
  | { event: 'page_discovered'; id?: string; data: { session_id: string; url: string; title: string; status_code: number; depth: number; content_type?: string; reached_by?: 'direct' | 'in_app' } }
  | { event: 'flow_detected'; id?: string; data: { session_id: string; type: DiscoveryFlowType; flow_id: string; pages: string[] } }
  | { event: 'warning'; id?: string; data: { code: string; message: string; pages: string[]; count: number } }
  | { event: 'completion'; id?: string; data: { session_id: string; status: string; pages_crawled?: number; flows_detected?: number; warnings?: number; error?: string } };

export type DiscoveryFlowType = 'authentication' | 'checkout' | 'search' | 'form_submission' | 'navigation' | 'crud';

export const TERMINAL_EXECUTION_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
export const TERMINAL_DISCOVERY_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

export interface FollowOptions {
  /** Stop following after this long and return the unfinished state (default: until the end). */
  waitMs?: number;
  /** `stream` (default) reads the Server-Sent Events, reconnecting with Last-Event-ID; `poll` reads the status resource. */
  follow?: 'stream' | 'poll';
  /** Polling period in `poll` mode, and after the stream failed repeatedly (default 1000 ms). */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

export interface RunPlanOptions extends FollowOptions {
  testPlanId: string;
  /** The plan's project; read from the plan when omitted. */
  projectId?: string;
  /** A key of the project's `environments`. */
  environment?: string;
  variables?: Record<string, string>;
  timeoutSeconds?: number;
  trace?: 'off' | 'on' | 'retain-on-failure';
  onEvent?(event: ExecutionEvent): void;
}

export type RunResult =
  | { id: string; finished: true; execution: Schemas['Execution'] & { results: NonNullable<Schemas['Execution']['results']> } }
  | { id: string; finished: false; status: Schemas['ExecutionStatus'] };

export interface DiscoverOptions extends FollowOptions {
  projectId: string;
  targetUrl: string;
  maxPages?: number;
  maxDepth?: number;
  includePatterns?: string[];
  excludePatterns?: string[];
  requestDelayMs?: number;
  /** Turn the detected flows into test cases once the crawl completed (optionally appended to a plan). */
  generate?: boolean | { testPlanId?: string; flowIds?: string[] };
  onEvent?(event: DiscoveryEvent): void;
}

export type DiscoverResult =
  | { sessionId: string; finished: true; results: Schemas['DiscoveryResults']; generated?: Schemas['DiscoveryGenerated'] }
  | { sessionId: string; finished: false; progress: Schemas['DiscoveryProgress'] };

/** The data of an openapi-fetch result. The client already threw AssayApiError for every error answer. */
export function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${result.response.status} answer without a body`);
  return result.data;
}

const STREAM_RECONNECTS = 5;

/**
 * The Assay API client: `api` is the typed openapi-fetch client generated
 * from the gateway's OpenAPI document (every error answer throws
 * AssayApiError), plus helpers for the long operations.
 */
export class AssayClient {
  readonly api: Client<paths>;
  readonly baseUrl: string;
  private readonly fetch: (input: Request) => Promise<Response>;
  private readonly headers: Record<string, string>;

  constructor(opts: AssayClientOptions) {
    if (!opts.apiKey) throw new TypeError('An API key is required (a service key, an sk_live_ key or a session token)');
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    const base = opts.fetch ?? ((r: Request) => globalThis.fetch(r));
    this.fetch = opts.retry === false ? retryingFetch(base, { retries: 0 }) : retryingFetch(base, opts.retry);
    this.headers = { authorization: `Bearer ${opts.apiKey}`, 'user-agent': opts.userAgent ?? 'assay-client' };
    this.api = createClient<paths>({ baseUrl: this.baseUrl, fetch: this.fetch, headers: this.headers });
    this.api.use({
      async onResponse({ request, response }) {
        if (!response.ok) throw await AssayApiError.fromResponse(response, request.method);
        return undefined;
      },
    });
  }

  /**
   * One request outside the typed paths (a route this client's contracts do not list yet).
   * @throws AssayApiError for an error answer.
   */
  async request(method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
    const isForm = typeof FormData !== 'undefined' && init.body instanceof FormData;
    const request = new Request(`${this.baseUrl}${path}`, {
      method,
      headers: { ...this.headers, ...(init.body !== undefined && !isForm ? { 'content-type': 'application/json' } : {}), ...init.headers },
      ...(init.body !== undefined ? { body: isForm ? (init.body as FormData) : JSON.stringify(init.body) } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const response = await this.fetch(request);
    if (!response.ok) throw await AssayApiError.fromResponse(response, method);
    return response;
  }

  /** `request` for a JSON answer. */
  async requestJson<T = unknown>(method: string, path: string, init: { body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
    return (await (await this.request(method, path, init)).json()) as T;
  }

  /**
   * Reads a Server-Sent Events resource from `lastEventId` on; yields events until the server ends the stream.
   * @throws AssayApiError when the stream cannot be opened.
   */
  async *events(path: string, opts: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<ServerSentEvent> {
    const response = await this.request('GET', path, {
      headers: { accept: 'text/event-stream', ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}) },
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    if (!response.body) return;
    yield* parseEventStream(response.body);
  }

  /** Imports a CSV, JSON or Selenium IDE (.side) file of test cases into a project. */
  async importTestCases(projectId: string, file: { name: string; content: string | Uint8Array; type?: string }): Promise<Schemas['ImportResponse']> {
    const form = new FormData();
    form.append('project_id', projectId);
    const bytes = typeof file.content === 'string' ? new TextEncoder().encode(file.content) : file.content;
    form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>], { type: file.type ?? 'application/octet-stream' }), file.name);
    return this.requestJson('POST', '/api/v1/test-cases/import', { body: form });
  }

  /** A test case or a whole plan as a Playwright Test file (`format: 'playwright'`) or as import JSON. */
  async export(target: { testCaseId: string } | { testPlanId: string }, opts: { format?: 'playwright' | 'json'; environment?: string } = {}): Promise<{ filename: string; content: string }> {
    const query = new URLSearchParams({ format: opts.format ?? 'playwright', ...(opts.environment ? { environment: opts.environment } : {}) });
    const path = 'testCaseId' in target ? `/api/v1/test-cases/${encodeURIComponent(target.testCaseId)}/export` : `/api/v1/test-plans/${encodeURIComponent(target.testPlanId)}/export`;
    const response = await this.request('GET', `${path}?${query}`);
    const disposition = response.headers.get('content-disposition') ?? '';
    const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? (opts.format === 'json' ? 'test-cases.json' : 'assay.spec.ts');
    return { filename, content: await response.text() };
  }

  /**
   * Starts a run of a test plan (asynchronously) and follows it to its end, or for `waitMs`.
   * @throws AssayApiError when the run cannot be started or read.
   */
  async runPlan(opts: RunPlanOptions): Promise<RunResult> {
    const id = await this.startRun(opts);
    return this.followExecution(id, opts);
  }

  /** Queues a run of a plan and returns the execution id. */
  async startRun(opts: Omit<RunPlanOptions, keyof FollowOptions | 'onEvent'> & { signal?: AbortSignal }): Promise<string> {
    const projectId = opts.projectId ?? ok(await this.api.GET('/api/v1/test-plans/{test_plan_id}', { params: { path: { test_plan_id: opts.testPlanId } } })).project_id;
    const queued = ok(
      await this.api.POST('/api/v1/executions/async', {
        body: {
          test_plan_id: opts.testPlanId,
          project_id: projectId,
          ...(opts.environment !== undefined ? { environment: opts.environment } : {}),
          ...(opts.variables !== undefined ? { variables: opts.variables } : {}),
          ...(opts.timeoutSeconds !== undefined ? { timeout_seconds: opts.timeoutSeconds } : {}),
          ...(opts.trace !== undefined ? { trace: opts.trace } : {}),
        },
        ...(opts.signal ? { signal: opts.signal } : {}),
      }),
    );
    return queued.id;
  }

  /** Follows an execution until it ends (then returns it whole, with results) or `waitMs` passes. */
  async followExecution(id: string, opts: FollowOptions & { onEvent?(event: ExecutionEvent): void } = {}): Promise<RunResult> {
    const path = { params: { path: { execution_id: id } } };
    const readStatus = async () => ok(await this.api.GET('/api/v1/executions/{execution_id}/status', path));
    const ended = await this.follow({
      ...opts,
      streamPath: `/api/v1/executions/${encodeURIComponent(id)}/stream`,
      lastEvent: 'completed',
      onEvent: opts.onEvent as ((e: { event: string; id?: string; data: unknown }) => void) | undefined,
      isDone: async () => TERMINAL_EXECUTION_STATUSES.has((await readStatus()).status),
    });
    if (!ended) return { id, finished: false, status: await readStatus() };
    const execution = ok(await this.api.GET('/api/v1/executions/{execution_id}', path));
    return { id, finished: true, execution: { ...execution, results: execution.results ?? { test_results: [], summary: { total: 0, passed: 0, failed: 0, skipped: 0 } } } };
  }

  /**
   * Starts a discovery session and follows it to its end (or for `waitMs`); with `generate`,
   * turns its flows into test cases once it completed.
   */
  async discover(opts: DiscoverOptions): Promise<DiscoverResult> {
    const started = ok(
      await this.api.POST('/api/v1/discovery/start', {
        body: {
          project_id: opts.projectId,
          target_url: opts.targetUrl,
          ...(opts.maxPages !== undefined ? { max_pages: opts.maxPages } : {}),
          ...(opts.maxDepth !== undefined ? { max_depth: opts.maxDepth } : {}),
          ...(opts.includePatterns ? { include_patterns: opts.includePatterns } : {}),
          ...(opts.excludePatterns ? { exclude_patterns: opts.excludePatterns } : {}),
          ...(opts.requestDelayMs !== undefined ? { request_delay_ms: opts.requestDelayMs } : {}),
        },
        ...(opts.signal ? { signal: opts.signal } : {}),
      }),
    );
    return this.followDiscovery(started.session_id, opts);
  }

  /** Follows a discovery session until it ends (then returns its results) or `waitMs` passes. */
  async followDiscovery(sessionId: string, opts: FollowOptions & Pick<DiscoverOptions, 'generate' | 'onEvent'> = {}): Promise<DiscoverResult> {
    const path = { params: { path: { session_id: sessionId } } };
    const readProgress = async () => ok(await this.api.GET('/api/v1/discovery/{session_id}/progress', path));
    const ended = await this.follow({
      ...opts,
      streamPath: `/api/v1/discovery/${encodeURIComponent(sessionId)}/stream`,
      lastEvent: 'completion',
      onEvent: opts.onEvent as ((e: { event: string; id?: string; data: unknown }) => void) | undefined,
      isDone: async () => TERMINAL_DISCOVERY_STATUSES.has((await readProgress()).status),
    });
    if (!ended) return { sessionId, finished: false, progress: await readProgress() };
    const results = ok(await this.api.GET('/api/v1/discovery/{session_id}/results', path));
    if (!opts.generate || results.status !== 'completed' || results.flows.length === 0) return { sessionId, finished: true, results };
    const choice = opts.generate === true ? {} : opts.generate;
    const generated = ok(
      await this.api.POST('/api/v1/discovery/{session_id}/generate-test-cases', {
        ...path,
        body: { ...(choice.testPlanId ? { test_plan_id: choice.testPlanId } : {}), ...(choice.flowIds ? { flow_ids: choice.flowIds } : {}) },
      }),
    );
    return { sessionId, finished: true, results, generated };
  }

  /**
   * Follows an event stream to its last event, reconnecting with Last-Event-ID
   * when it breaks; after repeated failures (or with `follow: 'poll'`) polls
   * `isDone`. Resolves true when the resource ended, false when `waitMs` passed.
   */
  private async follow(o: FollowOptions & { streamPath: string; lastEvent: string; onEvent?: ((e: { event: string; id?: string; data: unknown }) => void) | undefined; isDone(): Promise<boolean> }): Promise<boolean> {
    const deadline = o.waitMs !== undefined ? Date.now() + o.waitMs : Infinity;
    const timeout = new AbortController();
    const timer = Number.isFinite(deadline) ? setTimeout(() => timeout.abort(new Error('wait elapsed')), Math.max(0, deadline - Date.now())) : undefined;
    const signal = o.signal ? AbortSignal.any([o.signal, timeout.signal]) : timeout.signal;
    const interval = o.pollIntervalMs ?? 1000;
    try {
      let lastEventId: string | undefined;
      let failures = o.follow === 'poll' ? STREAM_RECONNECTS : 0;
      while (failures < STREAM_RECONNECTS) {
        let progressed = false;
        try {
          for await (const e of this.events(o.streamPath, { ...(lastEventId ? { lastEventId } : {}), signal })) {
            progressed = true;
            lastEventId = e.id ?? lastEventId;
            let data: unknown = e.data;
            try {
              data = JSON.parse(e.data);
            } catch {
              /* keep the text */
            }
            o.onEvent?.({ event: e.event, ...(e.id ? { id: e.id } : {}), data });
            if (e.event === o.lastEvent) return true;
          }
        } catch (err) {
          if (timeout.signal.aborted) return false;
          if (o.signal?.aborted) throw o.signal.reason;
          if (err instanceof AssayApiError && err.status < 500 && err.status !== 429) throw err;
        }
        // The stream ended early (a restart, a proxy): resume where it stopped.
        failures = progressed ? 0 : failures + 1;
        if (await o.isDone()) return true;
        await sleepUnlessAborted(Math.min(interval * 2 ** failures, 10_000), signal);
        if (timeout.signal.aborted) return false;
      }
      for (;;) {
        if (await o.isDone()) return true;
        await sleepUnlessAborted(interval, signal);
        if (timeout.signal.aborted) return false;
        if (o.signal?.aborted) throw o.signal.reason;
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A client for `baseUrl` with `apiKey`; see AssayClient. */
export function createAssayClient(opts: AssayClientOptions): AssayClient {
  return new AssayClient(opts);
}
