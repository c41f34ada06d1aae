export { createHttpApp, errorMiddleware, isDependencyDown, SERVICE_UNAVAILABLE_RETRY_SECONDS, type HttpAppOptions } from './app.js';
export {
  AppError,
  MESSAGES,
  conflict,
  forbidden,
  invalidApiKey,
  notFound,
  notImplemented,
  serviceUnavailable,
  validationError,
  type ErrorCode,
} from './errors.js';
export {
  orgPrincipal,
  requireRole,
  requireScope,
  requireServicePrincipal,
  verifyPrincipalHeader,
} from './principal.middleware.js';
export { iso, isUuid, parsePagination, validateBody, type Pagination } from './validation.js';
export { serveEventStream, type EventStreamOptions, type StreamedEvent } from './sse.js';
export { answerClientErrorsWithJson, keepConnectionsAlive, KEEP_ALIVE_MS } from './client-errors.js';
