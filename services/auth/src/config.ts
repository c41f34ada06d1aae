import { readCommonConfig, readConfig, type CommonConfig, type Env } from '@assay/config';

export interface AuthConfig extends CommonConfig {
  schema: string;
  sessionTokenSecret: string;
  sessionTtlSeconds: number;
  accessTokenTtlSeconds: number;
  /** Stripe webhook endpoint secret (`whsec_...`); unset: billing webhooks answer 501. */
  stripeWebhookSecret: string | undefined;
}

export function loadConfig(env: Env): AuthConfig {
  return readConfig(env, (r) => ({
    ...readCommonConfig(r, 'auth', 8081),
    schema: 'auth',
    sessionTokenSecret: r.secret('SESSION_TOKEN_SECRET', { minLength: 32 }),
    sessionTtlSeconds: r.int('SESSION_TTL_SECONDS', { default: 12 * 3600, min: 60, max: 30 * 86400 }),
    accessTokenTtlSeconds: r.int('ACCESS_TOKEN_TTL_SECONDS', { default: 900, min: 30, max: 86400 }),
    stripeWebhookSecret: r.optionalString('STRIPE_WEBHOOK_SECRET'),
  }));
}
