import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { kafkaClientSecurity } from './kafka-security.js';

describe('kafkaClientSecurity (KAFKA_TLS* / KAFKA_SASL_* → kafkajs ssl and sasl)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kafka-sec-'));
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('maps nothing to nothing (plaintext, no authentication)', () => {
    expect(kafkaClientSecurity({})).toEqual({});
  });

  it('reads the CA bundle, the mTLS pair and the server name from their files', () => {
    const out = kafkaClientSecurity({
      tls: { rejectUnauthorized: true, caFile: file('ca.pem', 'CA'), certFile: file('c.pem', 'CERT'), keyFile: file('c.key', 'KEY'), serverName: 'b.internal' },
    });
    expect(out).toEqual({ ssl: { rejectUnauthorized: true, ca: ['CA'], cert: 'CERT', key: 'KEY', servername: 'b.internal' } });
    // TLS on the system trust store (managed clusters with public CAs).
    expect(kafkaClientSecurity({ tls: { rejectUnauthorized: true } })).toEqual({ ssl: { rejectUnauthorized: true } });
  });

  it('stops with the variable name when a certificate file cannot be read', () => {
    expect(() => kafkaClientSecurity({ tls: { rejectUnauthorized: true, caFile: path.join(dir, 'missing.pem') } })).toThrow(/^KAFKA_TLS_CA_FILE: cannot read .*missing\.pem \(ENOENT\)/);
  });

  it('maps PLAIN and SCRAM to kafkajs mechanisms with their credentials', () => {
    for (const mechanism of ['plain', 'scram-sha-256', 'scram-sha-512'] as const) {
      expect(kafkaClientSecurity({ sasl: { mechanism, username: 'u', password: 'p' } }).sasl).toEqual({ mechanism, username: 'u', password: 'p' });
    }
  });

  it('OAUTHBEARER with a token file reads the file at every authentication (a refreshed token is used)', async () => {
    const token = file('token', 'first-token\n');
    const { sasl } = kafkaClientSecurity({ sasl: { mechanism: 'oauthbearer', tokenFile: token } });
    const provider = (sasl as { oauthBearerProvider: () => Promise<{ value: string }> }).oauthBearerProvider;
    expect(sasl?.mechanism).toBe('oauthbearer');
    expect(await provider()).toEqual({ value: 'first-token' });
    writeFileSync(token, 'second-token');
    expect(await provider()).toEqual({ value: 'second-token' });
    writeFileSync(token, '');
    await expect(provider()).rejects.toThrow(/TOKEN_FILE .* is empty/);
  });

  it('OAUTHBEARER with a provider module loads it once, at the first authentication, and calls it every time (the MSK IAM hook)', async () => {
    const loads: string[] = [];
    let n = 0;
    const { sasl } = kafkaClientSecurity({ sasl: { mechanism: 'oauthbearer', tokenProvider: '/app/msk-iam.mjs' } }, async (modulePath) => {
      loads.push(modulePath);
      return async () => ({ value: `signed-${++n}` });
    });
    expect(loads).toEqual([]);
    const provider = (sasl as { oauthBearerProvider: () => Promise<{ value: string }> }).oauthBearerProvider;
    expect(await provider()).toEqual({ value: 'signed-1' });
    expect(await provider()).toEqual({ value: 'signed-2' });
    expect(loads).toEqual(['/app/msk-iam.mjs']);
  });
});
