import { createRequire } from 'node:module';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';

/**
 * librdkafka's mock cluster (real Kafka-protocol brokers on 127.0.0.1) started
 * through the optional @confluentinc/kafka-javascript, which `make setup`
 * builds against Debian's librdkafka-dev. It answers no CreateTopics and
 * names no controller: topics are made by auto-creation (`autoCreateTopics`),
 * producers run without idempotence.
 */
interface MockClient {
  on(event: 'event.log', cb: (log: { message: string }) => void): void;
  connect(opts: object, cb: (err: unknown) => void): void;
  disconnect(cb: () => void): void;
}

function loadMockLibrary(): { Producer: new (conf: Record<string, unknown>) => MockClient } | undefined {
  try {
    // __filename under jest (CommonJS); the package's own folder under tsx (ESM, tests/e2e/kafka/stack.ts).
    const from = typeof __filename === 'string' ? __filename : path.join(process.cwd(), 'libs', 'bus', 'package.json');
    return createRequire(from)('@confluentinc/kafka-javascript');
  } catch {
    return undefined;
  }
}

export const mockClusterAvailable = loadMockLibrary() !== undefined;

export interface MockCluster {
  brokers: string[];
  stop(): Promise<void>;
}

export async function startMockCluster(brokerCount = 3): Promise<MockCluster> {
  const lib = loadMockLibrary();
  if (!lib) throw new Error('@confluentinc/kafka-javascript is not built: make setup builds it against Debian librdkafka-dev');
  const client = new lib.Producer({ 'bootstrap.servers': '127.0.0.1:1', 'test.mock.num.brokers': brokerCount, event_cb: true, log_level: 7, debug: 'mock' });
  const bootstrap = new Promise<string>((resolve) =>
    client.on('event.log', (log) => {
      const m = /Mock cluster \S+ bootstrap\.servers=(\S+)/.exec(log.message);
      if (m) resolve(m[1]!);
    }),
  );
  client.connect({}, () => undefined);
  const brokers = (await bootstrap).split(',');
  return { brokers, stop: () => new Promise<void>((r) => client.disconnect(() => r())) };
}

/**
 * Creates `topics` on the mock by auto-creation, talking to it directly: a consumer's subscribe
 * sends a metadata request that allows it (no message is written).
 */
export async function autoCreateTopics(brokers: string[], topics: string[]): Promise<void> {
  const kafka = new Kafka({ clientId: 'assay-mock-setup', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `assay-mock-setup-${process.pid}`, allowAutoTopicCreation: true });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics });
  } finally {
    await consumer.disconnect();
  }
}

export interface GroupBacklog {
  /** Messages of a (group, topic) not yet committed by its Kafka group: `${groupId} ${topic}` → count. */
  unconsumed: Record<string, number>;
  /** Messages in each non-empty dead-letter topic. */
  deadLetters: Record<string, number>;
}

/**
 * What the brokers still hold for consumers, read through `brokers` (a soak's audit): for each
 * `[kafkaGroupId, topic]` pair, the messages past the group's committed offset (a partition the group
 * never committed counts from its low watermark), and every message in the given dead-letter topics.
 */
export async function groupBacklog(brokers: string[], pairs: Array<[string, string]>, deadLetterTopics: string[]): Promise<GroupBacklog> {
  const kafka = new Kafka({ clientId: 'assay-backlog', brokers, logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const unconsumed: Record<string, number> = {};
    const ends = new Map<string, Array<{ partition: number; high: string; low: string }>>();
    const endsOf = async (topic: string) => {
      if (!ends.has(topic)) ends.set(topic, await admin.fetchTopicOffsets(topic));
      return ends.get(topic)!;
    };
    for (const [groupId, topic] of pairs) {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      let n = 0;
      for (const p of await endsOf(topic)) {
        const at = committed?.partitions.find((c) => c.partition === p.partition)?.offset;
        const from = at === undefined || Number(at) < 0 ? Number(p.low) : Number(at);
        n += Math.max(0, Number(p.high) - from);
      }
      if (n > 0) unconsumed[`${groupId} ${topic}`] = n;
    }
    const deadLetters: Record<string, number> = {};
    for (const topic of deadLetterTopics) {
      const n = (await endsOf(topic)).reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
      if (n > 0) deadLetters[topic] = n;
    }
    return { unconsumed, deadLetters };
  } finally {
    await admin.disconnect();
  }
}
