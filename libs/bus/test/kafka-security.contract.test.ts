import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TOPICS } from '@assay/contracts';
import { createSilentLogger } from '@assay/logger';
import { createTestDatabase, createTestPki, eventually, startKafkaFront, type KafkaFront, type TestDatabase, type TestPki } from '@assay/testing';
import { KafkaBus, kafkaClientSecurity, type EventEnvelope } from '@assay/bus';
import type { KafkaSaslConfig, KafkaTlsConfig } from '@assay/config';
import { autoCreateTopics, mockClusterAvailable, startMockCluster, type MockCluster } from './mock-cluster.js';

jest.setTimeout(90_000);

/**
 * TLS and SASL against real sockets: librdkafka's mock cluster has neither, so
 * KafkaFront (libs/testing) terminates TLS and answers the SASL exchange in
 * front of it, then passes the Kafka frames through. The client side is the
 * bus's own: `kafkaClientSecurity` from the KAFKA_TLS* / KAFKA_SASL_* settings,
 * handed to kafkajs, whose TLS and SASL code runs unchanged.
 */
const describeKafka = mockClusterAvailable ? describe : describe.skip;
const USERS = { assay: 'correct horse battery staple' };
const TOKEN = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhc3NheSJ9.';

describeKafka('kafka bus over TLS and SASL (KafkaFront in front of the mock cluster)', () => {
  let cluster: MockCluster;
  let pki: TestPki;
  let db: TestDatabase;
  const fronts: KafkaFront[] = [];
  const buses: KafkaBus[] = [];
  const logger = createSilentLogger();

  beforeAll(async () => {
    pki = createTestPki();
    db = await createTestDatabase();
    cluster = await startMockCluster(1);
    await autoCreateTopics(cluster.brokers, [TOPICS.orgEvents]);
  });
  afterAll(async () => {
    for (const b of buses) await b.stop().catch(() => undefined);
    for (const f of fronts) await f.close();
    await cluster?.stop();
    pki?.cleanup();
    await db?.drop();
  });

  async function front(opts: { tls?: boolean; mtls?: boolean; mechanisms?: Array<'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER'> }) {
    const f = await startKafkaFront({
      upstream: cluster.brokers,
      ...(opts.tls ? { tls: { key: pki.serverKey, cert: pki.serverCert, ca: pki.ca, requireClientCert: Boolean(opts.mtls) } } : {}),
      ...(opts.mechanisms ? { sasl: { mechanisms: opts.mechanisms, users: USERS, tokens: [TOKEN] } } : {}),
    });
    fronts.push(f);
    return f;
  }

  function bus(f: KafkaFront, security: { tls?: KafkaTlsConfig; sasl?: KafkaSaslConfig }, connectionRetries?: number) {
    const b = new KafkaBus({ brokers: f.brokers, clientId: 'assay-security', logger, topics: false, idempotent: false, autoCreateTopics: true, databaseUrl: db.url, fetchMaxWaitMs: 100, sessionTimeoutMs: 6000, heartbeatIntervalMs: 1000, ...(connectionRetries !== undefined ? { connectionRetries } : {}), ...kafkaClientSecurity(security) });
    buses.push(b);
    return b;
  }

  const caOnly: KafkaTlsConfig = { rejectUnauthorized: true, caFile: '' };
  beforeAll(() => {
    caOnly.caFile = path.join(pki.dir, 'ca.pem');
  });

  it('publishes and consumes over mTLS with SCRAM-SHA-512: every connection went through TLS and authenticated', async () => {
    const f = await front({ tls: true, mtls: true, mechanisms: ['SCRAM-SHA-512'] });
    const b = bus(f, {
      tls: { ...caOnly, certFile: path.join(pki.dir, 'client.pem'), keyFile: path.join(pki.dir, 'client.key'), serverName: 'localhost' },
      sasl: { mechanism: 'scram-sha-512', username: 'assay', password: USERS.assay },
    });
    await b.start();
    const id = randomUUID();
    const got: string[] = [];
    const sub = await b.subscribe({ topic: TOPICS.orgEvents, group: `sec-${randomUUID()}`, handler: async (e) => void (e.id === id && got.push(e.id)) });
    const envelope: EventEnvelope = { id, event: 'organization.member.removed', timestamp: new Date().toISOString(), organization_id: 'org-sec', data: { user_id: 'u' } };
    await b.publish(TOPICS.orgEvents, [{ key: 'k', value: envelope }]);
    await eventually(async () => got.length === 1, 60_000);
    await sub.close();
    expect(f.stats.connections).toBeGreaterThanOrEqual(3); // admin, producer, consumer (+ its coordinator)
    expect(f.stats.tlsConnections).toBe(f.stats.connections);
    expect(f.stats.authenticated['SCRAM-SHA-512']).toBe(f.stats.connections);
    expect(f.stats.rejected + f.stats.refusedBeforeAuth).toBe(0);
  });

  it.each([
    ['PLAIN over TLS (Confluent Cloud, Aiven)', { tls: true, mechanisms: ['PLAIN' as const] }, { mechanism: 'plain' as const, username: 'assay', password: USERS.assay }],
    ['SCRAM-SHA-256 over TLS', { tls: true, mechanisms: ['SCRAM-SHA-256' as const] }, { mechanism: 'scram-sha-256' as const, username: 'assay', password: USERS.assay }],
    ['SCRAM-SHA-256 without TLS', { tls: false, mechanisms: ['SCRAM-SHA-256' as const] }, { mechanism: 'scram-sha-256' as const, username: 'assay', password: USERS.assay }],
  ])('starts, publishes and reports healthy with %s', async (_name, frontOpts, sasl) => {
    const f = await front(frontOpts);
    const b = bus(f, { ...(frontOpts.tls ? { tls: caOnly } : {}), sasl });
    await b.start();
    await b.publish(TOPICS.orgEvents, [{ key: 'k', value: { id: randomUUID(), event: 'organization.member.removed', timestamp: new Date().toISOString(), organization_id: 'org-sec', data: {} } }]);
    expect(await b.isHealthy()).toBe(true);
    expect(f.stats.authenticated[frontOpts.mechanisms[0]!]).toBeGreaterThanOrEqual(2);
    expect(f.stats.rejected).toBe(0);
  });

  it('OAUTHBEARER over TLS with a token file (the provider hook reads it at every authentication)', async () => {
    const f = await front({ tls: true, mechanisms: ['OAUTHBEARER'] });
    const tokenFile = path.join(pki.dir, 'token');
    writeFileSync(tokenFile, TOKEN);
    const b = bus(f, { tls: caOnly, sasl: { mechanism: 'oauthbearer', tokenFile } });
    await b.start();
    await b.publish(TOPICS.orgEvents, [{ key: 'k', value: { id: randomUUID(), event: 'organization.member.removed', timestamp: new Date().toISOString(), organization_id: 'org-sec', data: {} } }]);
    expect(f.stats.authenticated.OAUTHBEARER).toBeGreaterThanOrEqual(2);
  });

  it('refuses a wrong password, an unknown token, a missing client certificate and an untrusted server', async () => {
    const scram = await front({ tls: true, mechanisms: ['SCRAM-SHA-512'] });
    await expect(bus(scram, { tls: caOnly, sasl: { mechanism: 'scram-sha-512', username: 'assay', password: 'wrong' } }, 0).start()).rejects.toThrow(/SASL|[Aa]uthentication/);
    expect(scram.stats.rejected).toBeGreaterThan(0);

    const oauth = await front({ tls: true, mechanisms: ['OAUTHBEARER'] });
    const tokenFile = path.join(pki.dir, 'bad-token');
    writeFileSync(tokenFile, 'not-a-known-token');
    await expect(bus(oauth, { tls: caOnly, sasl: { mechanism: 'oauthbearer', tokenFile } }, 0).start()).rejects.toThrow(/SASL|[Aa]uthentication/);

    const mtls = await front({ tls: true, mtls: true });
    await expect(bus(mtls, { tls: caOnly }, 0).start()).rejects.toThrow();

    const plain = await front({ tls: true });
    // The system trust store does not know the test CA.
    await expect(bus(plain, { tls: { rejectUnauthorized: true } }, 0).start()).rejects.toThrow(/certificate|self.signed|issuer/i);
  });
});
