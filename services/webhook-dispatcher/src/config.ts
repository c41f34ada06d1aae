import { readCommonConfig, readConfig, type CommonConfig, type ConfigReader, type Env } from '@assay/config';
import { readEgressSettings, type EgressSettings } from '@assay/egress';

export interface WebhookConfig extends CommonConfig {
  schema: string;
  /** Key material for the AES-256-GCM encryption of webhook secrets at rest. */
  secretKey: string;
  /** Plain HTTP to loopback hosts (local development); HTTPS is required otherwise. */
  allowLocalHttp: boolean;
  /** What deliveries may connect to (EGRESS_*). */
  egress: EgressSettings;
  /** false: no per-webhook or per-organization rate limits (benchmarks). */
  rateLimitsEnabled: boolean;
  /** Deliveries one process sends at once. */
  concurrency: number;
  /** How long a batch keeps starting sends; its rows stay locked until it records them. */
  batchSeconds: number;
  /** false: API only; this process sends nothing. */
  dispatcherEnabled: boolean;
  /** E-mail to the organization's administrators when a webhook is disabled; unset: a notification row and a log line only. */
  smtp?: { url: string; from: string; authUrl: string };
}

export function loadConfig(env: Env): WebhookConfig {
  return readConfig(env, (r) => ({
    ...readCommonConfig(r, 'webhook-dispatcher', 8086),
    schema: 'webhook',
    secretKey: r.secret('WEBHOOK_SECRET_KEY', { minLength: 32 }),
    allowLocalHttp: r.bool('WEBHOOK_ALLOW_LOCAL_HTTP', { default: false }),
    egress: readEgressSettings(r),
    rateLimitsEnabled: r.bool('WEBHOOK_RATE_LIMITS_ENABLED', { default: true }),
    concurrency: r.int('WEBHOOK_CONCURRENCY', { default: 64, min: 1, max: 1000 }),
    batchSeconds: r.int('WEBHOOK_BATCH_SECONDS', { default: 30, min: 5, max: 600 }),
    dispatcherEnabled: r.bool('WEBHOOK_DISPATCHER_ENABLED', { default: true }),
    smtp: readSmtp(r),
  }));
}

/** SMTP_URL holds a password: problems name the variable, never its value. */
function readSmtp(r: ConfigReader): WebhookConfig['smtp'] {
  const url = r.optionalString('SMTP_URL');
  if (url === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['smtp:', 'smtps:'].includes(parsed.protocol) || !parsed.hostname) r.fail('SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…');
  const from = r.string('SMTP_FROM', { default: `Assay <assay@${parsed?.hostname || 'localhost'}>` });
  // The recipients (owner and admins) come from the auth service.
  const authUrl = r.optionalUrl('AUTH_URL');
  if (!authUrl) r.fail('SMTP_URL needs AUTH_URL: the auth service names the administrators to e-mail');
  return { url, from, authUrl: authUrl ?? '' };
}
