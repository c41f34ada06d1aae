import { logSafeUrl } from './log-url.js';

describe('logSafeUrl', () => {
  it('redacts the values of credential-like query parameters and keeps the rest', () => {
    expect(logSafeUrl('/api/auth/accept?token=inv_abc123&next=%2Fhome')).toBe('/api/auth/accept?token=[redacted]&next=%2Fhome');
    expect(logSafeUrl('/x?page=2&API_KEY=sk_live_1&Signature=s&code=42')).toBe('/x?page=2&API_KEY=[redacted]&Signature=[redacted]&code=[redacted]');
  });

  it('recognises encoded names, repeated parameters and keeps names without a value', () => {
    expect(logSafeUrl('/x?%74oken=a&token=b&token')).toBe('/x?%74oken=[redacted]&token=[redacted]&token');
    expect(logSafeUrl('/x?access_token=a%26b&q=token')).toBe('/x?access_token=[redacted]&q=token');
  });

  it('leaves URLs without a query, and malformed escapes, intact', () => {
    expect(logSafeUrl('/api/v1/executions/e1')).toBe('/api/v1/executions/e1');
    expect(logSafeUrl('/x?%E0%A4%A=1&password=p')).toBe('/x?%E0%A4%A=1&password=[redacted]');
  });
});
