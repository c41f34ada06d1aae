import { AssayApiError, createAssayClient, type AssayClient } from '@assay/client';

/**
 * The session: a short-lived access token in this module's memory only (never
 * in localStorage or a readable cookie), renewed from the sign-in's refresh
 * cookie, which is HttpOnly (no script reads it), SameSite=Strict and sent
 * only to POST /api/auth/refresh. A reload or a new tab asks that route for a
 * fresh access token, so it stays signed in; sign-out ends the sign-in on the
 * server and tells the other tabs (see the README).
 */
let token: string | undefined;
let expiresAt = 0;
let client: AssayClient | undefined;
let state: 'resuming' | 'signed-in' | 'signed-out' = 'resuming';
const listeners = new Set<() => void>();
/** Tells this browser's other tabs of the console about sign-out, sign-in and organization switches. */
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('assay-session') : undefined;

export interface Session {
  email: string;
  organizationId: string;
  organizationName: string;
  role: string;
  plan: string;
}
let session: Session | undefined;

export function currentSession(): Session | undefined {
  return session;
}

/** Whether the console is still asking the server for the sign-in of a reload or new tab. */
export function isResuming(): boolean {
  return state === 'resuming';
}

export function onSessionChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function notify(): void {
  for (const fn of listeners) fn();
}

/** The typed client for the signed-in user (same origin as the console). */
export function api(): AssayClient {
  if (!client) throw new Error('Not signed in');
  return client;
}

let refreshing: Promise<boolean> | undefined;

/**
 * A new access token from the refresh cookie (rotated by the server on every
 * use). Tabs take turns through a Web Lock, so two tabs never present the
 * same cookie at once. False when the sign-in ended.
 */
function refreshAccess(): Promise<boolean> {
  refreshing ??= (async () => {
    const call = async () => {
      const res = await fetch('/api/auth/refresh', { method: 'POST', headers: { 'x-assay-refresh': '1' }, credentials: 'same-origin' });
      if (!res.ok) return false;
      const body = (await res.json()) as { token: string; expires_at: string; email: string; organization_id: string };
      const movedOrganization = session !== undefined && session.organizationId !== body.organization_id;
      adoptToken(body.token, body.expires_at);
      if (!session || movedOrganization) await loadSession(body.email);
      return true;
    };
    try {
      return navigator.locks ? await navigator.locks.request('assay-refresh', call) : await call();
    } catch {
      return false;
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

/** Every API call of the console goes through here: the current access token, renewed once on a 401 or shortly before it expires. */
async function sessionFetch(request: Request): Promise<Response> {
  if (token && Date.now() > expiresAt - 30_000) await refreshAccess();
  const retry = request.clone();
  // The body is sent as bytes, not as the Request's stream: the browser's network panel (and a test's
  // request log) shows a streamed body as absent.
  const send = async (r: Request) => {
    const headers = new Headers(r.headers);
    headers.set('authorization', `Bearer ${token ?? ''}`);
    const body = r.body ? await r.arrayBuffer() : undefined;
    return fetch(r.url, { method: r.method, headers, body, signal: r.signal, credentials: r.credentials, cache: r.cache, redirect: r.redirect });
  };
  let res = await send(request);
  if (res.status === 401 && token && (await refreshAccess())) res = await send(retry);
  else if (res.status === 401 && state === 'signed-in') endLocally();
  return res;
}

function adoptToken(t: string, expires: string): void {
  token = t;
  expiresAt = Date.parse(expires) || Date.now() + 60_000;
  // The key is only a placeholder: sessionFetch sends the current token on every call.
  client ??= createAssayClient({ baseUrl: window.location.origin, apiKey: 'session', retry: { retries: 2 }, fetch: sessionFetch });
}

async function loadSession(email: string): Promise<void> {
  const me = (await api().api.GET('/api/auth/me')).data!;
  session = { email, organizationId: me.organization.id, organizationName: me.organization.name, role: me.principal.role, plan: me.organization.plan };
  state = 'signed-in';
  notify();
}

/** Forgets the session in this tab only (the server already ended it, or another tab signed out). */
function endLocally(): void {
  token = undefined;
  client = undefined;
  session = undefined;
  state = 'signed-out';
  notify();
}

/**
 * On load (a reload, a new tab, a pasted link): resumes the sign-in from the
 * refresh cookie, if the browser has one that still signs in.
 */
export async function resumeSession(): Promise<void> {
  if (!(await refreshAccess())) endLocally();
}

channel?.addEventListener('message', (e: MessageEvent) => {
  const what = (e.data as { type?: string })?.type;
  if (what === 'signed-out') endLocally();
  // Another tab signed in or switched organization: take the same sign-in from the (new) cookie.
  if (what === 'signed-in' || (what === 'switched' && state === 'signed-in')) void refreshAccess();
});

/** Signs in with e-mail and password (POST /api/auth/login). @throws AssayApiError */
export async function signIn(email: string, password: string): Promise<void> {
  // Login needs no credential: call it plainly. Its answer sets the refresh cookie.
  const res = await fetch('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (!res.ok) throw await AssayApiError.fromResponse(res, 'POST');
  const body = (await res.json()) as { token: string; expires_at: string };
  adoptToken(body.token, body.expires_at);
  await loadSession(email);
  channel?.postMessage({ type: 'signed-in' });
}

/**
 * Accepts an invitation (POST /api/auth/accept-invitation: the token is the
 * credential), setting the new member's password, and signs in with the
 * session it answers. @throws AssayApiError (400 for an unknown, used or expired token)
 */
export async function acceptInvitation(invitationToken: string, password: string): Promise<void> {
  const res = await fetch('/api/auth/accept-invitation', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: invitationToken, password }) });
  if (!res.ok) throw await AssayApiError.fromResponse(res, 'POST');
  const body = (await res.json()) as { token: string; expires_at: string; email: string };
  adoptToken(body.token, body.expires_at);
  await loadSession(body.email);
  channel?.postMessage({ type: 'signed-in' });
}

/** Moves the sign-in to another of the user's organizations (every tab follows). */
export async function switchOrganization(organizationId: string): Promise<void> {
  const email = session?.email ?? '';
  const r = (await api().api.POST('/api/auth/switch-organization', { body: { organization_id: organizationId } })).data!;
  adoptToken(r.token, r.expires_at);
  await loadSession(email);
  channel?.postMessage({ type: 'switched' });
}

/** Changes the password: every sign-in of the user ends, this tab continues in a new one. @throws AssayApiError */
export async function changePassword(currentPassword: string, newPassword: string): Promise<number> {
  const r = await api().requestJson<{ token: string; expires_at: string; sessions_ended: number }>('POST', '/api/auth/password', { body: { current_password: currentPassword, new_password: newPassword } });
  adoptToken(r.token, r.expires_at);
  // The other tabs' sign-in ended: they take this new one from the cookie.
  channel?.postMessage({ type: 'signed-in' });
  return r.sessions_ended;
}

/** Signs out on the server (this sign-in, or every sign-in of the user) and in every tab of this browser. */
export async function signOut(everywhere = false): Promise<void> {
  try {
    if (client) await api().requestJson('POST', '/api/auth/logout', { body: { everywhere } });
  } finally {
    endLocally();
    channel?.postMessage({ type: 'signed-out' });
  }
}

export function isSignedIn(): boolean {
  return token !== undefined && state === 'signed-in';
}

/** A readable line for any error of a call. */
export function errorText(err: unknown): string {
  if (err instanceof AssayApiError) return `${err.message} (${err.error}, ${err.status})`;
  return err instanceof Error ? err.message : String(err);
}

/** The failing fields of a 400, by field path (`name`, `steps[2].selector`). */
export function fieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (err instanceof AssayApiError && Array.isArray(err.details)) {
    for (const d of err.details as Array<{ field?: string; message?: string }>) {
      if (d.field && d.message) out[d.field.replace(/^body\./, '')] ??= d.message;
    }
  }
  return out;
}

/** The path of an absolute API URL the server gave (screenshots, traces), so it is fetched from this origin. */
function pathOf(url: string): string {
  try {
    const u = new URL(url, window.location.origin);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

/** Fetches an artifact with the session token (an <img> cannot send it) and answers a blob: URL. */
export async function artifactBlob(url: string): Promise<Blob> {
  const res = await api().request('GET', pathOf(url));
  return res.blob();
}
