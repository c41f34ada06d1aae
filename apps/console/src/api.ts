import { AssayApiError, createAssayClient, type AssayClient } from '@assay/client';

/**
 * The session lives in this module's memory only: never in localStorage or a
 * cookie. A reload signs the user out; no script of another origin, browser
 * extension storage or CSRF request can reach the token (see the README).
 */
let token: string | undefined;
let client: AssayClient | undefined;
const listeners = new Set<() => void>();

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

function adoptToken(t: string): AssayClient {
  token = t;
  client = createAssayClient({ baseUrl: window.location.origin, apiKey: t, retry: { retries: 2 } });
  return client;
}

async function loadSession(email: string): Promise<void> {
  const me = (await api().api.GET('/api/auth/me')).data!;
  session = { email, organizationId: me.organization.id, organizationName: me.organization.name, role: me.principal.role, plan: me.organization.plan };
  notify();
}

/** Signs in with e-mail and password (POST /api/auth/login). @throws AssayApiError */
export async function signIn(email: string, password: string): Promise<void> {
  // Login needs no credential: a throwaway client without one would refuse to build, so call it plainly.
  const res = await fetch('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (!res.ok) throw await AssayApiError.fromResponse(res, 'POST');
  const body = (await res.json()) as { token: string };
  adoptToken(body.token);
  await loadSession(email);
}

/**
 * Accepts an invitation (POST /api/auth/accept-invitation: the token is the
 * credential), setting the new member's password, and signs in with the
 * session it answers. @throws AssayApiError (400 for an unknown, used or expired token)
 */
export async function acceptInvitation(invitationToken: string, password: string): Promise<void> {
  const res = await fetch('/api/auth/accept-invitation', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: invitationToken, password }) });
  if (!res.ok) throw await AssayApiError.fromResponse(res, 'POST');
  const body = (await res.json()) as { token: string; email: string };
  adoptToken(body.token);
  await loadSession(body.email);
}

/** A new session in another of the user's organizations. */
export async function switchOrganization(organizationId: string): Promise<void> {
  const email = session?.email ?? '';
  const r = (await api().api.POST('/api/auth/switch-organization', { body: { organization_id: organizationId } })).data!;
  adoptToken(r.token);
  await loadSession(email);
}

export function signOut(): void {
  token = undefined;
  client = undefined;
  session = undefined;
  notify();
}

export function isSignedIn(): boolean {
  return token !== undefined;
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
