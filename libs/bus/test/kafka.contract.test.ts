import { TOPICS } from '@assay/contracts';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { createSilentLogger } from '@assay/logger';
import { createTestDatabase, type TestDatabase } from '@assay/testing';
import { deadLetterTopic, KafkaBus, retryTopic, type EventEnvelope } from '@assay/bus';
import { autoCreateTopics, mockClusterAvailable, startMockCluster, type MockCluster } from './mock-cluster.js';
import { CONTRACT_GROUPS, CONTRACT_TOPICS, describeBusContract, type BusFixture } from './contract.js';

jest.setTimeout(180_000);

/**
 * The broker: KAFKA_BROKERS when set (a real cluster; topics are provisioned
 * by the bus), else librdkafka's mock cluster started through
 * @confluentinc/kafka-javascript (real Kafka-protocol brokers on 127.0.0.1).
 * The mock answers no CreateTopics and names no controller, so there the
 * fixture makes the topics by auto-creation (4 partitions) and the producer
 * runs without idempotence.
 */
const given = process.env.KAFKA_BROKERS?.split(',').filter(Boolean) ?? [];
const LIVENESS_MS = 6000; // the smallest session timeout brokers accept by default
const RETRY_STEP_MS = 300;

const available = given.length > 0 || mockClusterAvailable;
if (!available) {
  // eslint-disable-next-line no-console
  console.info(
    'kafka bus contract skipped: KAFKA_BROKERS is unset and @confluentinc/kafka-javascript (the mock cluster) is not built; ' +
      'make setup builds it against Debian librdkafka-dev',
  );
}

let brokers: string[] = given;
let testDb: TestDatabase;
let mock: MockCluster | undefined;
const buses: KafkaBus[] = [];
const readers: Consumer[] = [];
const logger = createSilentLogger();
const kafka = () => new Kafka({ clientId: 'assay-contract', brokers, logLevel: logLevel.NOTHING });

/** The suite's topics, dead-letter and retry topics on the mock (auto-creation; no message is written). */
async function createTopicsOnMock(): Promise<void> {
  const topics = [...Object.values(TOPICS), ...CONTRACT_TOPICS.flatMap((t) => CONTRACT_GROUPS.flatMap((g) => [deadLetterTopic(t, g), retryTopic(t, g, 1), retryTopic(t, g, 2)]))];
  await autoCreateTopics(brokers, topics);
}

const describeKafka = available ? describe : describe.skip;
describeKafka(`bus contract on kafka (${given.length ? 'KAFKA_BROKERS' : 'librdkafka mock cluster'})`, () => {
  beforeAll(async () => {
    testDb = await createTestDatabase();
    if (!given.length) {
      mock = await startMockCluster();
      brokers = mock.brokers;
      await createTopicsOnMock();
    }
  });
  afterAll(async () => {
    for (const r of readers) await r.disconnect().catch(() => undefined);
    for (const b of buses) await b.stop();
    await mock?.stop();
    await testDb?.drop();
  });

  const fixture: BusFixture = {
    async newBus(opts) {
      const bus = new KafkaBus({
        brokers,
        clientId: 'assay-contract',
        logger,
        sessionTimeoutMs: opts?.livenessMs ?? LIVENESS_MS,
        heartbeatIntervalMs: 1000,
        // A short ladder: maxAttempts - 1 steps (the first attempt is on the topic itself).
        retryDelaysMs: Array.from({ length: (opts?.maxAttempts ?? 3) - 1 }, () => RETRY_STEP_MS),
        databaseUrl: testDb.url,
        restartDelayMs: 500,
        // The mock answers a fetch only when its wait is over (a real broker answers when data arrives).
        fetchMaxWaitMs: given.length ? undefined : 100,
        ...(given.length ? { topics: { partitions: 4, replicationFactor: 1, minInsyncReplicas: 1 } } : { topics: false, idempotent: false, autoCreateTopics: true }),
      });
      await bus.start();
      buses.push(bus);
      return bus;
    },
    async deadLetters(topic, group) {
      const reader = kafka().consumer({ groupId: `dlq-reader-${Date.now()}-${Math.random()}`, sessionTimeout: LIVENESS_MS, heartbeatInterval: 1000 });
      readers.push(reader);
      const letters: Array<{ id: string; error: string }> = [];
      await reader.connect();
      await reader.subscribe({ topic: deadLetterTopic(topic, group), fromBeginning: true });
      await reader.run({
        eachMessage: async ({ message }) => {
          const envelope = JSON.parse(message.value!.toString('utf8')) as EventEnvelope;
          letters.push({ id: envelope.id, error: message.headers?.['assay-error']?.toString() ?? '' });
        },
      });
      await new Promise((r) => setTimeout(r, 3000));
      await reader.disconnect();
      return letters;
    },
    livenessMs: LIVENESS_MS,
    leavesGroupOnStop: given.length > 0,
    holdsKeys: true,
  };
  describeBusContract(() => fixture);

  describe('topic provisioning at start', () => {
    it('refuses to start, naming the variable, when the cluster has fewer brokers than the replication factor', async () => {
      const bus = new KafkaBus({ brokers, clientId: 'assay-contract', logger, topics: { partitions: 4, replicationFactor: 9, minInsyncReplicas: 2 } });
      buses.push(bus);
      await expect(bus.start()).rejects.toThrow(/has \d broker\(s\) but KAFKA_REPLICATION_FACTOR is 9/);
    });

    it('keeps topics that exist (idempotent) and warns when they have fewer partitions than configured', async () => {
      const lines: Array<{ msg: string; topic?: string }> = [];
      const recording = createSilentLogger();
      recording.warn = ((obj: { topic?: string }, msg: string) => void lines.push({ msg, topic: obj.topic })) as never;
      const bus = new KafkaBus({ brokers, clientId: 'assay-contract', logger: recording, idempotent: given.length > 0, topics: { partitions: 64, replicationFactor: 1, minInsyncReplicas: 1 } });
      buses.push(bus);
      await bus.start();
      await bus.start(); // a second start is a no-op
      expect(await bus.isHealthy()).toBe(true);
      const warned = lines.filter((l) => /fewer partitions than KAFKA_PARTITIONS/.test(l.msg)).map((l) => l.topic).sort();
      expect(warned).toEqual(Object.values(TOPICS).sort());
    });
  });
});
