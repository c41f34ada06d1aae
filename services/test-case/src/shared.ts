export { iso, isUuid, queryBoolean, queryString } from '@assay/http';

/** Escapes LIKE wildcards so a search for "50%" matches the text "50%". */
export const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
