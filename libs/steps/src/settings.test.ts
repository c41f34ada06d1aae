import { ConfigError, readConfig } from '@assay/config';
import { readStepTimeouts } from './settings.js';

describe('readStepTimeouts', () => {
  it('defaults to 5 s per step and 15 s per navigation, and reads both', () => {
    expect(readConfig({}, readStepTimeouts)).toEqual({ stepTimeoutMs: 5000, navigationTimeoutMs: 15_000 });
    expect(readConfig({ STEP_TIMEOUT_MS: '250000', NAVIGATION_TIMEOUT_MS: '2000' }, readStepTimeouts)).toEqual({ stepTimeoutMs: 250_000, navigationTimeoutMs: 2000 });
  });

  it('refuses values out of range or not whole numbers, naming the variable', () => {
    expect(() => readConfig({ STEP_TIMEOUT_MS: '50' }, readStepTimeouts)).toThrow(ConfigError);
    expect(() => readConfig({ NAVIGATION_TIMEOUT_MS: '1e9' }, readStepTimeouts)).toThrow(/NAVIGATION_TIMEOUT_MS/);
  });
});
