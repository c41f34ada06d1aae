import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { Timestamp, DefaultTimestamp, NullableTimestamp, Json } from '@assay/db';
import type { OutboxTables } from '@assay/bus';
import type { Plan } from '@assay/principal';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface ConditionalRule {
  field: 'consecutive_failures' | 'pass_rate' | 'time_of_day' | 'environment';
  op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'between';
  value: unknown;
}
export interface ConditionalRules {
  match?: 'all' | 'any';
  rules: ConditionalRule[];
}

export interface WebhookTable {
  id: Generated<string>;
  org_id: string;
  name: string;
  url: string;
  events: string[];
  filter_projects: Generated<string[]>;
  filter_priorities: Generated<string[]>;
  conditional_rules: Json<ConditionalRules | null>;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  disabled_at: NullableTimestamp;
  /** AES-256-GCM ciphertext of the signing secret (see secrets.ts). */
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: NullableTimestamp;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

/** The organization's plan as last seen on a call of one of its members or keys. */
export interface OrgPlanTable {
  org_id: string;
  plan: Plan;
  updated_at: DefaultTimestamp;
}

export interface DeliveryTable {
  id: Generated<string>;
  org_id: string;
  webhook_id: string;
  event: string;
  event_id: string | null;
  test: Generated<boolean>;
  /** The envelope exactly as sent: signatures cover these bytes. */
  body: string;
  status: Generated<DeliveryStatus>;
  attempt_count: Generated<number>;
  max_attempts: number;
  next_attempt_at: NullableTimestamp;
  status_code: number | null;
  response_body: string | null;
  response_time_ms: number | null;
  error: string | null;
  created_at: Timestamp;
  completed_at: NullableTimestamp;
  /** The log keeps the row until then (plan history period). */
  expires_at: Timestamp;
  /** Every attempt, oldest first (jsonb: timestamps are ISO strings). */
  attempts: ColumnType<DeliveryAttempt[], never, never>;
  /** W3C trace context of the event or request that made it: its sends continue that trace. */
  traceparent: string | null;
}

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  status_code: number | null;
  response_time_ms: number | null;
  error: string | null;
}

/** A pending delivery, due at `next_attempt_at`; dispatchers lock these rows while they send. */
export interface DeliveryQueueTable {
  delivery_id: string;
  next_attempt_at: Timestamp;
}

export interface RateCounterTable {
  key: string;
  window_start: Timestamp;
  count: number;
}

export interface FailureStreakTable {
  org_id: string;
  test_case_id: string;
  count: number;
}

export interface NotificationTable {
  id: Generated<string>;
  org_id: string;
  webhook_id: string | null;
  kind: string;
  message: string;
  created_at: Timestamp;
  emailed_at: NullableTimestamp;
}

export interface WebhookDatabase extends OutboxTables {
  webhooks: WebhookTable;
  org_plans: OrgPlanTable;
  deliveries: DeliveryTable;
  delivery_queue: DeliveryQueueTable;
  rate_counters: RateCounterTable;
  failure_streaks: FailureStreakTable;
  notifications: NotificationTable;
}

export type WebhookRow = Selectable<WebhookTable>;
export type NewWebhookRow = Insertable<WebhookTable>;
export type DeliveryRow = Selectable<DeliveryTable>;
export type NewDeliveryRow = Insertable<DeliveryTable>;
