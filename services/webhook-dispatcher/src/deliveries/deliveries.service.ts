import { iso } from '@assay/http';
import type { DeliveryRow } from '../db/database.js';

/** A delivery as the API shows it. */
export function toDeliveryBody(row: DeliveryRow) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: row.event,
    event_id: row.event_id,
    status: row.status,
    test: row.test,
    attempt_count: row.attempt_count,
    max_attempts: row.max_attempts,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    status_code: row.status_code,
    response_body: row.response_body,
    response_time_ms: row.response_time_ms,
    error: row.error,
    attempts: row.attempts.map((a) => ({ attempt: a.attempt, at: iso(new Date(a.at)), status_code: a.status_code, response_time_ms: a.response_time_ms, error: a.error })),
    created_at: iso(row.created_at),
    completed_at: iso(row.completed_at),
  };
}
