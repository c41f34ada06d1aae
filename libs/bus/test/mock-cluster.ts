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
