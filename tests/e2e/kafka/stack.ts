/**
 * `make test-kafka`: the e2e suite's webhook and execution cases, and the Kafka operations case
 * (tests/e2e/kafka-ops.test.ts), on stacks with BUS=kafka whose brokers ask for TLS and SASL.
 *
 * The brokers are librdkafka's mock cluster (three brokers, through @confluentinc/kafka-javascript)
 * behind KafkaFront (libs/testing): TLS with a CA made here, SASL SCRAM-SHA-512, so every service's
 * real kafkajs TLS and SASL code runs. The mock answers no CreateTopics, so the topics (the catalog,
 * and each consumer group's retry and dead-letter topics) are made here by auto-creation and the
 * services run with KAFKA_PROVISION_TOPICS=false. A loopback control port lets the operations case
 * hang (pause) or stop (refuse) the brokers. Jest runs as a child; its exit code is this one's.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { TOPICS } from '@assay/contracts';
import { createTestPki, startKafkaFront } from '@assay/testing';
import { autoCreateTopics, mockClusterAvailable, startMockCluster } from '../../../libs/bus/test/mock-cluster.js';

const USER = 'assay-e2e';
const PASSWORD = 'scram-e2e-password-not-a-secret';
const GROUPS = ['webhook-dispatcher', 'analysis', 'auth', 'execution-runner'];
const RETRY_DELAYS = ['1s', '2s'];

async function main(): Promise<number> {
  if (!mockClusterAvailable) {
    console.error('make test-kafka needs @confluentinc/kafka-javascript (the mock cluster): make setup builds it against Debian librdkafka-dev');
    return 1;
  }
  const pki = createTestPki();
  const cluster = await startMockCluster(3);
  const topics = Object.values(TOPICS).flatMap((t) => [t, ...GROUPS.flatMap((g) => [`${t}.dlq.${g}`, ...RETRY_DELAYS.map((_, i) => `${t}.retry.${g}.${i + 1}`)])]);
  await autoCreateTopics(cluster.brokers, topics);
  const front = await startKafkaFront({
    upstream: cluster.brokers,
    tls: { key: pki.serverKey, cert: pki.serverCert },
    sasl: { mechanisms: ['SCRAM-SHA-512'], users: { [USER]: PASSWORD } },
  });
  const control = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/pause') front.pause();
    else if (req.method === 'POST' && req.url === '/refuse') front.refuse();
    else if (req.method === 'POST' && req.url === '/resume') front.resume();
    else if (!(req.method === 'GET' && req.url === '/stats')) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(front.stats));
  });
  await new Promise<void>((r) => control.listen(0, '127.0.0.1', r));
  const envFile = path.join(pki.dir, 'bus.env.json');
  writeFileSync(
    envFile,
    JSON.stringify({
      BUS: 'kafka',
      KAFKA_BROKERS: front.brokers.join(','),
      KAFKA_TLS_CA_FILE: path.join(pki.dir, 'ca.pem'),
      KAFKA_TLS_SERVERNAME: 'localhost',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: USER,
      KAFKA_SASL_PASSWORD: PASSWORD,
      KAFKA_PROVISION_TOPICS: 'false',
      KAFKA_RETRY_DELAYS: RETRY_DELAYS.join(','),
      KAFKA_SESSION_TIMEOUT_MS: '6000',
    }),
  );
  const files = process.argv.slice(2);
  const jestFiles = files.length ? files : ['tests/e2e/webhooks.test.ts', 'tests/e2e/executions.test.ts', 'tests/e2e/kafka-ops.test.ts', 'libs/bus/test/kafka-ops.test.ts'];
  process.stdout.write(`[test-kafka] mock cluster ${cluster.brokers.join(',')} behind KafkaFront ${front.brokers.join(',')} (TLS, SASL SCRAM-SHA-512); ${topics.length} topics\n`);
  const started = Date.now();
  const code = await new Promise<number>((resolve) => {
    const child = spawn('pnpm', ['--silent', 'exec', 'jest', '--ci', '--runInBand', '--forceExit', ...jestFiles], {
      stdio: 'inherit',
      env: { ...process.env, ASSAY_E2E_BUS_ENV_FILE: envFile, ASSAY_KAFKA_CONTROL_URL: `http://127.0.0.1:${(control.address() as { port: number }).port}`, ASSAY_KAFKA_LONG: '1' },
    });
    child.on('exit', (c) => resolve(c ?? 1));
  });
  process.stdout.write(`[test-kafka] jest exited ${code} after ${((Date.now() - started) / 1000).toFixed(1)} s; KafkaFront saw ${JSON.stringify(front.stats)}\n`);
  control.close();
  await front.close();
  await cluster.stop();
  pki.cleanup();
  return code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
