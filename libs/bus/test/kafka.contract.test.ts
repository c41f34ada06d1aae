import { createRequire } from 'node:module';
import { TOPICS } from '@assay/contracts';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { createSilentLogger } from '@assay/logger';
import { deadLetterTopic, KafkaBus, type EventEnvelope } from '@assay/bus';
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

function loadMockLibrary(): { Producer: new (conf: Record<string, unknown>) => MockClient } | undefined {
  try {
    return createRequire(__filename)('@confluentinc/kafka-javascript');
  } catch {
    return undefined;
  }
}
interface MockClient {
  on(event: 'event.log', cb: (log: { message: string }) => void): void;
  connect(opts: object, cb: (err: unknown) => void): void;
  disconnect(cb: () => void): void;
}

const mockLibrary = given.length ? undefined : loadMockLibrary();
const available = given.length > 0 || mockLibrary !== undefined;
if (!available) {
  // eslint-disable-next-line no-console
  console.info(
    'kafka bus contract skipped: KAFKA_BROKERS is unset and @confluentinc/kafka-javascript (the mock cluster) is not built; ' +
      'make setup builds it against Debian librdkafka-dev',
  );
}

let brokers: string[] = given;
let mock: MockClient | undefined;
const buses: KafkaBus[] = [];
const readers: Consumer[] = [];
const logger = createSilentLogger();
const kafka = () => new Kafka({ clientId: 'assay-contract', brokers, logLevel: logLevel.NOTHING });

async function startMockCluster(): Promise<string[]> {
  const client = new mockLibrary!.Producer({ 'bootstrap.servers': '127.0.0.1:1', 'test.mock.num.brokers': 3, event_cb: true, log_level: 7, debug: 'mock' });
  const bootstrap = new Promise<string>((resolve) =>
    client.on('event.log', (log) => {
      const m = /Mock cluster \S+ bootstrap\.servers=(\S+)/.exec(log.message);
      if (m) resolve(m[1]!);
    }),
  );
  client.connect({}, () => undefined);
  mock = client;
  return (await bootstrap).split(',');
}

/** Auto-creates the suite's topics and dead-letter topics on the mock (a metadata request with auto-creation). */
async function createTopicsOnMock(): Promise<void> {
  const producer = kafka().producer({ allowAutoTopicCreation: true });
  await producer.connect();
  const warmup: EventEnvelope = { id: '00000000-0000-4000-8000-000000000000', event: 'organization.member.removed', timestamp: new Date().toISOString(), organization_id: 'warmup', data: { user_id: 'warmup' } };
  const topics = [...Object.values(TOPICS), ...CONTRACT_TOPICS.flatMap((t) => CONTRACT_GROUPS.map((g) => deadLetterTopic(t, g)))];
  for (const topic of topics) await producer.send({ topic, messages: [{ key: 'warmup', value: JSON.stringify(warmup) }] });
  await producer.disconnect();
}

const describeKafka = available ? describe : describe.skip;
describeKafka(`bus contract on kafka (${given.length ? 'KAFKA_BROKERS' : 'librdkafka mock cluster'})`, () => {
  beforeAll(async () => {
    if (!given.length) {
      brokers = await startMockCluster();
      await createTopicsOnMock();
    }
  });
  afterAll(async () => {
    for (const r of readers) await r.disconnect().catch(() => undefined);
    for (const b of buses) await b.stop();
    if (mock) await new Promise<void>((r) => mock!.disconnect(() => r()));
  });

  const fixture: BusFixture = {
    async newBus(opts) {
      const bus = new KafkaBus({
        brokers,
        clientId: 'assay-contract',
        logger,
        sessionTimeoutMs: opts?.livenessMs ?? LIVENESS_MS,
        heartbeatIntervalMs: 1000,
        retryDelayMs: 200,
        restartDelayMs: 500,
        ...(opts?.maxAttempts ? { maxAttempts: opts.maxAttempts } : {}),
        ...(given.length ? { topics: { partitions: 4, replicationFactor: 1, minInsyncReplicas: 1 } } : { topics: false, idempotent: false }),
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
