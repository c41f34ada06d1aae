import type { NextFunction, Request, Response } from 'express';
import { contractValidator, type FieldError } from '@assay/contracts';
import { validationError } from './errors.js';

/** Validates `req.body` against the named contract schema; 400 with field details otherwise. */
export function validateBody(schema: string) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const body: unknown = req.body;
    if (body === undefined) return next(validationError([{ field: 'body', message: 'a JSON body is required' }]));
    const errors = contractValidator().validate(schema, body);
    next(errors.length ? validationError(errors) : undefined);
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs: anything else can match no row, so callers answer 404 without a query (and Postgres never sees a malformed uuid). */
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

/** A timestamp as the API writes it: ISO 8601 UTC, or null. */
export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export interface Pagination {
  limit: number;
  offset: number;
}

/**
 * Reads `limit` and `offset` from a query string.
 * @throws AppError 400 naming the bad parameter (non-integer, below 1, above max, negative offset).
 */
export function parsePagination(query: Record<string, unknown>, opts: { defaultLimit: number; maxLimit: number }): Pagination {
  const errors: FieldError[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = query[name];
    if (raw === undefined || raw === '') return fallback;
    if (typeof raw !== 'string' || !/^-?\d+$/.test(raw)) {
      errors.push({ field: name, message: 'must be an integer' });
      return fallback;
    }
    const n = Number(raw);
    if (n < min || n > max) errors.push({ field: name, message: `must be between ${min} and ${max}` });
    return n;
  };
  const limit = int('limit', opts.defaultLimit, 1, opts.maxLimit);
  const offset = int('offset', 0, 0, Number.MAX_SAFE_INTEGER);
  if (errors.length) throw validationError(errors);
  return { limit, offset };
}
