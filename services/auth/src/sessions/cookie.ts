import type { Request, Response } from 'express';
import { AppError } from '@assay/http';
import type { IssuedSession } from './sessions.service.js';

/**
 * The refresh cookie. `__Secure-` and `Secure`: browsers keep it only from a
 * secure context (HTTPS, or http://localhost and 127.0.0.1, which Chromium and
 * Firefox count as secure); `HttpOnly`: no script reads it; `SameSite=Strict`:
 * no request from another site carries it; `Path`: only the refresh route
 * receives it, so no other route of the API ever sees an ambient credential.
 */
export const REFRESH_COOKIE = '__Secure-assay_refresh';
export const REFRESH_PATH = '/api/auth/refresh';
const ATTRIBUTES = `Path=${REFRESH_PATH}; HttpOnly; Secure; SameSite=Strict`;

export function setRefreshCookie(res: Response, refresh: IssuedSession['refresh']): void {
  res.append('set-cookie', `${REFRESH_COOKIE}=${refresh.token}; Max-Age=${refresh.max_age_seconds}; ${ATTRIBUTES}`);
}

export function clearRefreshCookie(res: Response): void {
  res.append('set-cookie', `${REFRESH_COOKIE}=; Max-Age=0; ${ATTRIBUTES}`);
}

/** The refresh token of the request's cookie header, if any. */
export function refreshTokenOf(req: Request): string | undefined {
  for (const part of String(req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === REFRESH_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The refresh route's guard against cross-site use, on top of SameSite=Strict:
 * the caller must send `X-Assay-Refresh: 1`, a header no cross-site form or
 * link can add (a cross-origin fetch adding it needs a CORS preflight, which
 * the gateway never grants), and a browser's `Sec-Fetch-Site`, when sent, must
 * say the call came from this origin.
 * @throws AppError 403 otherwise.
 */
export function assertSameOriginRefresh(req: Request): void {
  const site = req.header('sec-fetch-site');
  if (req.header('x-assay-refresh') !== '1' || (site !== undefined && site !== 'same-origin')) {
    throw new AppError('insufficient_permissions', 'A session refresh must come from the console itself (X-Assay-Refresh: 1, same origin)');
  }
}

/** The JSON body of an issued session: the refresh token never leaves the cookie. */
export function sessionBody<T extends IssuedSession>(s: T): Omit<T, 'refresh' | 'session_id'> {
  const { refresh: _r, session_id: _s, ...rest } = s;
  return rest;
}
