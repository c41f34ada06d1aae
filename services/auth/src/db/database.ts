import type { Generated, Insertable, Selectable } from 'kysely';
import type { Timestamp, DefaultTimestamp } from '@assay/db';
import type { OutboxTables } from '@assay/bus';
import type { Plan, Role } from '@assay/principal';

export type OrganizationStatus = 'active' | 'suspended' | 'deleted';
export type KeyKind = 'service_key' | 'api_key';

export interface OrganizationTable {
  id: Generated<string>;
  name: string;
  plan: Plan;
  status: Generated<OrganizationStatus>;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface UserTable {
  id: Generated<string>;
  email: string;
  name: string;
  password_hash: string;
  created_at: DefaultTimestamp;
}

export interface MembershipTable {
  org_id: string;
  user_id: string;
  role: Role;
  created_at: DefaultTimestamp;
}

export interface KeyTable {
  id: Generated<string>;
  org_id: string;
  kind: KeyKind;
  name: string;
  environment: 'prod' | 'dev' | null;
  scopes: Generated<string[]>;
  /** sha256 of the whole secret; the secret itself is never stored. */
  secret_hash: Buffer;
  created_by: string;
  created_at: DefaultTimestamp;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used: Timestamp | null;
  usage_count: Generated<number>;
}

export interface AuthDatabase extends OutboxTables {
  organizations: OrganizationTable;
  users: UserTable;
  memberships: MembershipTable;
  keys: KeyTable;
}

export type OrganizationRow = Selectable<OrganizationTable>;
export type UserRow = Selectable<UserTable>;
export type KeyRow = Selectable<KeyTable>;
export type NewKeyRow = Insertable<KeyTable>;
