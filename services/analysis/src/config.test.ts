import { ConfigError } from '@assay/config';
import { loadConfig } from './config.js';

const base = {
  DATABASE_URL: 'postgres://localhost/assay',
  INTERNAL_TOKEN_SECRET: 'x'.repeat(32),
  EXECUTION_RUNNER_URL: 'http://127.0.0.1:8083',
  TEST_CASE_URL: 'http://127.0.0.1:8082',
};

describe('analysis configuration', () => {
  it('has working defaults: port 8085, worker on, re-runs on, no model', () => {
    expect(loadConfig(base)).toMatchObject({ port: 8085, schema: 'analysis', workerEnabled: true, concurrency: 1, leaseSeconds: 60, rerunEnabled: true, maxRerunsPerExecution: 10 });
    expect(loadConfig(base).llm).toBeUndefined();
    expect(loadConfig(base).discoveryCrawlerUrl).toBeUndefined();
  });

  it('refuses to start without the runner and test-case URLs, or with a model URL and no model, naming each variable', () => {
    try {
      loadConfig({ DATABASE_URL: base.DATABASE_URL, INTERNAL_TOKEN_SECRET: base.INTERNAL_TOKEN_SECRET, ANALYSIS_LLM_URL: 'http://127.0.0.1:1/v1' });
      throw new Error('loadConfig accepted a broken configuration');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as Error).message;
      for (const name of ['EXECUTION_RUNNER_URL', 'TEST_CASE_URL', 'ANALYSIS_LLM_MODEL']) expect(message).toContain(name);
    }
  });

  it('reads the path of a relocation model fitted on this installation\'s own sites, unset by default', () => {
    expect(loadConfig(base).relocationModelPath).toBeUndefined();
    expect(loadConfig({ ...base, ANALYSIS_RELOCATION_MODEL: '/etc/assay/relocation.json' }).relocationModelPath).toBe('/etc/assay/relocation.json');
  });

  it('reads the model endpoint, keeping the key out of anything but its field', () => {
    const c = loadConfig({ ...base, ANALYSIS_LLM_URL: 'http://127.0.0.1:1/v1', ANALYSIS_LLM_MODEL: 'small', ANALYSIS_LLM_API_KEY: 'sk-secret' });
    expect(c.llm).toEqual({ url: 'http://127.0.0.1:1/v1', model: 'small', apiKey: 'sk-secret', timeoutMs: 20_000 });
  });
});
