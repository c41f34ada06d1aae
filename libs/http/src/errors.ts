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

/** An error with its HTTP status and JSON body `{error, message, details?}`. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** Extra top-level body fields, such as `retry_after`. */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
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
  new AppError(400, 'validation_error', message ?? describeFieldErrors(details), details);
export const invalidApiKey = (message: string = MESSAGES.invalidApiKey) => new AppError(401, 'invalid_api_key', message);
export const forbidden = (message: string = MESSAGES.insufficientPermissions) =>
  new AppError(403, 'insufficient_permissions', message);
export const notFound = (what = 'Resource') => new AppError(404, 'not_found', `${what} not found`);
export const conflict = (message: string, details?: unknown) => new AppError(409, 'conflict', message, details);
export const notImplemented = (message: string) => new AppError(501, 'not_implemented', message);
export const serviceUnavailable = (message: string) => new AppError(503, 'service_unavailable', message);

function describeFieldErrors(details: FieldError[]): string {
  if (details.length === 0) return 'Request is invalid';
  return `Invalid request: ${details.slice(0, 3).map((d) => `${d.field} ${d.message}`).join('; ')}`;
}
