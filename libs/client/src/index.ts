export {
  AssayClient,
  createAssayClient,
  ok,
  TERMINAL_DISCOVERY_STATUSES,
  TERMINAL_EXECUTION_STATUSES,
  type AssayClientOptions,
  type DiscoverOptions,
  type DiscoverResult,
  type DiscoveryEvent,
  type ExecutionEvent,
  type FollowOptions,
  type RunPlanOptions,
  type RunResult,
  type Schemas,
} from './client.js';
export { AssayApiError, AssayConnectionError, retryAfterSeconds } from './errors.js';
export { retryingFetch, type RetryOptions } from './retry.js';
export { parseEventStream, type ServerSentEvent } from './sse.js';
export type { components, operations, paths } from './generated/openapi.js';
