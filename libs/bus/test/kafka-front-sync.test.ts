import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { eventually, startKafkaFront, type KafkaFront } from '@assay/testing';
import { autoCreateTopics, mockClusterAvailable, startMockCluster, type MockCluster } from './mock-cluster.js';

jest.setTimeout(90_000);

/**
 * Two processes in one consumer group, as a rolling upgrade has (the old replica and the new one), on
 * librdkafka's mock behind KafkaFront. The mock answers a follower whose SyncGroup comes after the
 * leader's with INVALID_REQUEST, where a broker answers its assignment; the front gives it its
 * assignment (found by make upgrade-drill BUS=kafka: the new analysis replica never joined its groups).
 */
const describeKafka = mockClusterAvailable ? describe : describe.skip;

describeKafka('KafkaFront: a follower that syncs after its group leader', () => {
  let cluster: MockCluster;
  let partitions = 0;
  const fronts: KafkaFront[] = [];
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    cluster = await startMockCluster(1);
    await autoCreateTopics(cluster.brokers, ['front-sync']);
    const admin = new Kafka({ clientId: 'front-sync-admin', brokers: cluster.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    partitions = (await admin.fetchTopicOffsets('front-sync')).length;
    await admin.disconnect();
  });
  afterAll(async () => {
    for (const c of consumers) await c.disconnect().catch(() => undefined);
    for (const f of fronts) await f.close();
    await cluster?.stop();
  });

  it('gets its assignment of the generation, and the two members share the partitions', async () => {
    // The leader through one front; the follower through one that holds its SyncGroup back, so it comes last.
    const leaderFront = await startKafkaFront({ upstream: cluster.brokers });
    const followerFront = await startKafkaFront({ upstream: cluster.brokers, holdFollowerSyncMs: 1500 });
    fronts.push(leaderFront, followerFront);
    const joined = (brokers: string[], name: string) => {
      const kafka = new Kafka({ clientId: name, brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 } });
      const consumer = kafka.consumer({ groupId: 'front-sync-group', sessionTimeout: 10_000, heartbeatInterval: 500, retry: { retries: 0 }, allowAutoTopicCreation: true });
      consumers.push(consumer);
      const state = { assigned: [] as number[], crashes: [] as string[] };
      consumer.on(consumer.events.GROUP_JOIN, (e) => void (state.assigned = [...(e.payload.memberAssignment['front-sync'] ?? [])].sort()));
      consumer.on(consumer.events.CRASH, (e) => void state.crashes.push(String(e.payload.error)));
      return { consumer, state };
    };
    const leader = joined(leaderFront.brokers, 'leader');
    await leader.consumer.connect();
    await leader.consumer.subscribe({ topics: ['front-sync'] });
    await leader.consumer.run({ eachMessage: async () => undefined });
    await eventually(async () => leader.state.assigned.length === partitions, 30_000);

    const follower = joined(followerFront.brokers, 'follower');
    await follower.consumer.connect();
    await follower.consumer.subscribe({ topics: ['front-sync'] });
    await follower.consumer.run({ eachMessage: async () => undefined });
    // Without the front's answer the follower's late SyncGroup fails (INVALID_REQUEST) and it crashes, never assigned.
    await eventually(async () => follower.state.crashes.length > 0 || (follower.state.assigned.length > 0 && leader.state.assigned.length + follower.state.assigned.length === partitions), 45_000);
    expect(follower.state.crashes).toEqual([]);
    expect([...leader.state.assigned, ...follower.state.assigned].sort()).toEqual([...Array(partitions).keys()]);
  });
});

