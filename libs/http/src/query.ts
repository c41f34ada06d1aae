import { validationError } from './errors.js';

/**
 * Readers of one query-string parameter (`req.query` with the simple parser).
 * An empty value counts as absent; a repeated one (`?a=1&a=2`) is refused,
 * never read as its first or last value.
 */
export type Query = Record<string, unknown>;

/**
 * A single string parameter.
 * @throws AppError 400 when repeated, longer than `maxLength` or holding a NUL character.
 */
export function queryString(query: Query, name: string, maxLength = 200): string | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string') throw validationError([{ field: name, message: 'must be given once' }]);
  if (raw.length > maxLength) throw validationError([{ field: name, message: `must be at most ${maxLength} characters` }]);
  if (raw.includes('\u0000')) throw validationError([{ field: name, message: 'must not contain NUL characters' }]);
  return raw;
}

/**
 * A string parameter the request cannot do without.
 * @throws AppError 400 when absent or empty, or as `queryString`.
 */
export function requiredQueryString(query: Query, name: string, maxLength = 200): string {
  const value = queryString(query, name, maxLength);
  if (value === undefined) throw validationError([{ field: name, message: 'is required' }]);
  return value;
}

/**
 * A boolean parameter: true/false/1/0; `fallback` when absent.
 * @throws AppError 400 for anything else.
 */
export function queryBoolean(query: Query, name: string, fallback: boolean): boolean {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw validationError([{ field: name, message: 'must be true or false' }]);
}

/**
 * A parameter that must be one of `allowed`.
 * @throws AppError 400 naming the allowed values for anything else (a repeated one included).
 */
export function queryOneOf<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !allowed.includes(raw as T)) throw validationError([{ field: name, message: `must be one of ${allowed.join(', ')}` }]);
  return raw as T;
}
