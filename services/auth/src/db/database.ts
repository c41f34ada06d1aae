import type { Generated, Insertable, Selectable } from 'kysely';
import type { Timestamp, DefaultTimestamp } from '@assay/db';
import type { OutboxTables } from '@assay/bus';
import type { QuotaType } from '@assay/contracts';
import type { Plan, Role } from '@assay/principal';

export type OrganizationStatus = 'active' | 'suspended' | 'deleted';
export type KeyKind = 'service_key' | 'api_key';

export interface OrganizationTable {
  id: Generated<string>;
  name: string;
  plan: Plan;
  status: Generated<OrganizationStatus>;
  /** The Stripe customer whose subscription sets the plan (operator route). */
  stripe_customer_id: string | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface UserTable {
  id: Generated<string>;
  email: string;
  name: string;
  /** null for an invited user who has not accepted yet. */
  password_hash: string | null;
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

export interface InvitationTable {
  id: Generated<string>;
  org_id: string;
  user_id: string;
  /** sha256 of the token; the token is shown once. */
  token_hash: Buffer;
  created_at: DefaultTimestamp;
  expires_at: Timestamp;
  accepted_at: Timestamp | null;
}

export interface UsageCounterTable {
  org_id: string;
  /** `YYYY-MM`, UTC. */
  period: string;
  quota: QuotaType;
  /** Base units: browser seconds, pages, executions. */
  amount: Generated<string>;
  updated_at: DefaultTimestamp;
}

export interface MeteredExecutionTable {
  execution_id: string;
  org_id: string;
  metered_at: DefaultTimestamp;
}

export interface QuotaAlertTable {
  org_id: string;
  period: string;
  quota: QuotaType;
  level: 'warning' | 'exceeded';
  created_at: DefaultTimestamp;
}

export interface StripeEventTable {
  id: string;
  type: string;
  org_id: string | null;
  outcome: string;
  received_at: DefaultTimestamp;
}

/** One console sign-in: its refresh tokens rotate, its access tokens name it (`sid`). */
export interface SessionTable {
  id: Generated<string>;
  user_id: string;
  /** The organization the session acts in (switch-organization moves it). */
  org_id: string;
  created_at: DefaultTimestamp;
  last_refreshed_at: Timestamp | null;
  /** Absolute end of the sign-in (SESSION_TTL_SECONDS after it). */
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  revoked_reason: string | null;
}

export interface RefreshTokenTable {
  /** sha256 of the token; the token lives only in the browser's HttpOnly cookie. */
  token_hash: Buffer;
  session_id: string;
  created_at: DefaultTimestamp;
  /** Set when the token was exchanged for its successor. */
  used_at: Timestamp | null;
}

export interface AuthDatabase extends OutboxTables {
  organizations: OrganizationTable;
  users: UserTable;
  memberships: MembershipTable;
  keys: KeyTable;
  invitations: InvitationTable;
  usage_counters: UsageCounterTable;
  metered_executions: MeteredExecutionTable;
  quota_alerts: QuotaAlertTable;
  stripe_events: StripeEventTable;
  sessions: SessionTable;
  refresh_tokens: RefreshTokenTable;
}

export type SessionRow = Selectable<SessionTable>;

export type OrganizationRow = Selectable<OrganizationTable>;
export type UserRow = Selectable<UserTable>;
export type KeyRow = Selectable<KeyTable>;
export type NewKeyRow = Insertable<KeyTable>;
