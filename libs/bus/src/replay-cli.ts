/**
 * `make replay-dead-letters TOPIC=<topic> GROUP=<group>` (or `tsx libs/bus/src/replay-cli.ts --topic T --group G`):
 * hands a consumer group's dead letters back to that group only, after the cause is fixed. Reads BUS,
 * DATABASE_URL and the KAFKA_* variables as the services do. On Kafka the letters present now go onto the
 * group's first retry step, due at once (a replay group's offsets keep them from being replayed twice); on
 * pg the jobs of `<queue>__dlq` go back onto the group's queue.
 */
import { parseArgs } from 'node:util';
import { TOPICS, type Topic } from '@assay/contracts';
import { ConfigError, readConfig, readKafkaConfig } from '@assay/config';
import { createLogger } from '@assay/logger';
import { createBus } from './index.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { topic: { type: 'string' }, group: { type: 'string' } } });
  const topics = Object.values(TOPICS) as string[];
  if (!values.topic || !topics.includes(values.topic)) throw new ConfigError([`--topic (TOPIC=) must be one of ${topics.join(', ')} (got "${values.topic ?? ''}")`]);
  if (!values.group || !/^[a-z0-9][a-z0-9_-]{0,60}$/.test(values.group)) throw new ConfigError([`--group (GROUP=) must name a consumer group, such as webhook-dispatcher (got "${values.group ?? ''}")`]);
  const config = readConfig(process.env, (r) => ({
    bus: r.oneOf('BUS', ['pg', 'kafka'] as const, { default: 'pg' }),
    databaseUrl: r.url('DATABASE_URL'),
    kafka: readKafkaConfig(r),
    logLevel: r.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, { default: 'info' }),
  }));
  const logger = createLogger('replay-dead-letters', config.logLevel);
  const bus = createBus({ kind: config.bus, databaseUrl: config.databaseUrl, kafka: config.kafka, clientId: 'assay-replay', logger });
  await bus.start();
  try {
    const replayed = await bus.replayDeadLetters(values.topic as Topic, values.group);
    process.stdout.write(`replayed ${replayed} dead letter(s) of ${values.topic} for group ${values.group}\n`);
  } finally {
    await bus.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
