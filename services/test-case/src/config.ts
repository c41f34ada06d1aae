import { readCommonConfig, readConfig, type CommonConfig, type Env } from '@assay/config';

export interface TestCaseConfig extends CommonConfig {
  schema: string;
}

export function loadConfig(env: Env): TestCaseConfig {
  return readConfig(env, (r) => ({ ...readCommonConfig(r, 'test-case', 8082), schema: 'testcase' }));
}
