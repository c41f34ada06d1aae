import type { Kysely } from 'kysely';
import type { Plan } from '@assay/principal';
import { servicePrincipal } from '@assay/principal';
import type { AuthDatabase } from '../db/database.js';
import { createKey } from '../keys/keys.service.js';
import { countOrganizations } from '../organizations/organizations.repository.js';
import { createOrganizationWithOwner, withBootstrapLock } from '../organizations/organizations.service.js';
import { generatePassword } from '../secrets/passwords.js';

export interface BootstrapInput {
  email?: string;
  organization_name?: string;
  plan?: Plan;
}

/**
 * First start of a deployment: one organization, its owner (with a generated
 * password) and a dev service key. Idempotent: once any organization exists it
 * creates nothing and says so.
 */
export function bootstrapDeployment(db: Kysely<AuthDatabase>, schema: string, input: BootstrapInput) {
  return withBootstrapLock(db, async (trx) => {
    if ((await countOrganizations(trx)) > 0) return { created: false as const };
    const password = generatePassword();
    const email = input.email ?? 'admin@assay.local';
    const { org, user } = await createOrganizationWithOwner(trx, schema, {
      name: input.organization_name ?? 'My organization',
      plan: input.plan ?? 'pro',
      owner: { email, name: 'Administrator', password },
    });
    const { secret } = await createKey(trx, { ...servicePrincipal('bootstrap'), org_id: org.id }, 'service_key', {
      name: 'local bootstrap key',
      environment: 'dev',
    });
    return { created: true as const, organization_id: org.id, user_id: user.id, email, password, service_key: secret };
  });
}
