import type { FieldError } from '@assay/contracts';

/** The closed set of error codes of DESIGN.md, Errors. */
export type ErrorCode =
  | 'validation_error'
  | 'invalid_api_key'
  | 'insufficient_permissions'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limit_exceeded'
  | 'not_implemented'
  | 'internal_server_error'
  | 'service_unavailable';

/** The spec's fixed messages, where it gives one. */
export const MESSAGES = {
  invalidApiKey: 'API key is invalid or expired',
  insufficientPermissions: 'plan lacks access to the resource',
  internal: 'an unexpected error occurred',
} as const;

/** The error catalogue: the HTTP status of each code (DESIGN.md, Errors). */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  validation_error: 400,
  invalid_api_key: 401,
  insufficient_permissions: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limit_exceeded: 429,
  internal_server_error: 500,
  not_implemented: 501,
  service_unavailable: 503,
};

/** An error with its code (its HTTP status from ERROR_STATUS) and JSON body `{error, message, details?}`. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** Extra top-level body fields, such as `retry_after`. */
    readonly extra?: Record<string, unknown>,
    /** Another 4xx than the code's, where a library named it (an unreadable body). */
    status?: number,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = status ?? ERROR_STATUS[code];
  }

  toBody(): Record<string, unknown> {
    return {
      error: this.code,
      message: this.message,
      ...(this.details !== undefined ? { details: this.details } : {}),
      ...this.extra,
    };
  }
}

export const validationError = (details: FieldError[], message?: string) =>
  new AppError('validation_error', message ?? describeFieldErrors(details), details);
export const invalidApiKey = (message: string = MESSAGES.invalidApiKey) => new AppError('invalid_api_key', message);
export const forbidden = (message: string = MESSAGES.insufficientPermissions) =>
  new AppError('insufficient_permissions', message);
export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found`);
export const conflict = (message: string, details?: unknown) => new AppError('conflict', message, details);
export const notImplemented = (message: string) => new AppError('not_implemented', message);
export const serviceUnavailable = (message: string) => new AppError('service_unavailable', message);

function describeFieldErrors(details: FieldError[]): string {
  if (details.length === 0) return 'Request is invalid';
  return `Invalid request: ${details.slice(0, 3).map((d) => `${d.field} ${d.message}`).join('; ')}`;
}
