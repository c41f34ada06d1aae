export { createHttpApp, errorMiddleware, isDependencyDown, readiness, READINESS_LIMIT_MS, SERVICE_UNAVAILABLE_RETRY_SECONDS, type DependencyCheck, type HttpAppOptions, type ReadinessResult } from './app.js';
export {
  AppError,
  ERROR_STATUS,
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
  actingOrgId,
  orgPrincipal,
  requireRole,
  requireScope,
  requireServicePrincipal,
  verifyPrincipalHeader,
} from './principal.middleware.js';
export { iso, isUuid, parsePagination, validateBody, type Pagination } from './validation.js';
export { createServiceApp, type ServiceAppDeps, type ServiceAppOptions } from './service-app.js';
export { mountedRoutes, serviceRouter, type ServiceRouter } from './service-router.js';
export { serveEventStream, type EventStreamOptions, type StreamedEvent } from './sse.js';
export { answerClientErrorsWithJson, drainServer, keepConnectionsAlive, KEEP_ALIVE_MS, resendable } from './client-errors.js';
export { cleanFilename, readMultipart, type MultipartOptions, type MultipartUpload, type UploadedPart } from './multipart.js';
export { queryBoolean, queryOneOf, queryString, requiredQueryString, type Query } from './query.js';
