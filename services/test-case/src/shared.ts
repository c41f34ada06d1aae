import { validationError } from '@assay/http';

export { iso, isUuid } from '@assay/http';

/**
 * A boolean query parameter: true/false/1/0, the default when absent.
 * @throws AppError 400 naming the parameter for anything else.
 */
export function queryBoolean(query: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw validationError([{ field: name, message: 'must be true or false' }]);
}

/** A single string query parameter, refusing repeated or over-long values. */
export function queryString(query: Record<string, unknown>, name: string, maxLength = 200): string | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string') throw validationError([{ field: name, message: 'must be given once' }]);
  if (raw.length > maxLength) throw validationError([{ field: name, message: `must be at most ${maxLength} characters` }]);
  if (raw.includes('\u0000')) throw validationError([{ field: name, message: 'must not contain NUL characters' }]);
  return raw;
}


/** Escapes LIKE wildcards so a search for "50%" matches the text "50%". */
export const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
