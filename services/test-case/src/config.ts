import { readCommonConfig, readConfig, type CommonConfig, type Env } from '@assay/config';

export interface TestCaseConfig extends CommonConfig {
  schema: string;
  /** Key material that encrypts secret variables; unset: derived from INTERNAL_TOKEN_SECRET. */
  secretsKey: string | undefined;
}

export function loadConfig(env: Env): TestCaseConfig {
  return readConfig(env, (r) => ({
    ...readCommonConfig(r, 'test-case', 8082),
    schema: 'testcase',
    secretsKey: env.SECRETS_KEY === undefined || env.SECRETS_KEY === '' ? undefined : r.secret('SECRETS_KEY', { minLength: 32 }),
  }));
}
