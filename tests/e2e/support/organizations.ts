import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import { bearer, call } from './http.js';
import type { Assay } from './launcher.js';

export interface ProvisionedOrganization {
  orgId: string;
  ownerId: string;
  email: string;
  name: string;
  password: string;
}

/** A new organization with an owner, made the way an operator would: auth's internal API, signed with the internal secret. */
export async function provisionOrganization(assay: Assay, name: string, plan: 'starter' | 'growth' | 'pro' = 'growth'): Promise<ProvisionedOrganization> {
  const owner = { email: `${name.toLowerCase().replace(/\W/g, '')}-${Date.now()}@example.test`, name: `${name} owner`, password: 'a long enough password 12345' };
  const res = await fetch(`http://127.0.0.1:${assay.authPort}/internal/organizations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(assay.internalSecret, servicePrincipal('e2e')) },
    body: JSON.stringify({ name, plan, owner }),
  });
  const body = (await res.json()) as { organization: { id: string; name: string }; owner: { id: string } };
  if (res.status !== 201) throw new Error(`provisioning failed: ${res.status} ${JSON.stringify(body)}`);
  return { orgId: body.organization.id, ownerId: body.owner.id, ...owner };
}

/** A session token for e-mail and password. */
export async function login(assay: Assay, email: string, password: string): Promise<string> {
  const r = await call(assay.gatewayUrl, 'POST', '/api/auth/login', { body: { email, password } });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.token;
}

/** A new key of the organization `credential` belongs to: a service key, or an `sk_live_` API key. */
export async function createKey(assay: Assay, credential: string, kind: 'service' | 'api', body: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const path = kind === 'service' ? '/api/service-keys' : '/api/api-keys';
  const r = await call(assay.gatewayUrl, 'POST', path, { headers: bearer(credential), body: { name: `${kind} key`, ...(kind === 'service' ? { environment: 'dev' } : {}), ...body } });
  if (r.status !== 201) throw new Error(`creating a key failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}
