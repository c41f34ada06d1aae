import { randomUUID } from 'node:crypto';
import { TOPICS, type Topic } from '@assay/contracts';
import { eventually } from '@assay/testing';
import type { Bus, EventEnvelope, Subscription } from '@assay/bus';

/** What the contract suite needs from a transport: fresh bus "processes" (own clients and connections) and its dead letters. */
export interface BusFixture {
  /** A new bus, started; stopped by the fixture at the end. */
  newBus(opts?: { maxAttempts?: number; livenessMs?: number }): Promise<Bus>;
  /** The messages given up for (topic, group): envelope ids with the error each carries. */
  deadLetters(topic: Topic, group: string): Promise<Array<{ id: string; error: string }>>;
  /** How long a handler may run before the transport would count its consumer dead (Kafka's session timeout). */
  livenessMs: number;
  /**
   * Whether a stopping process is seen to leave its group at once. False only for librdkafka's mock cluster:
   * it advertises LeaveGroup v0-4 but reads a v3 request (kafkajs's) in the v0-2 layout, answers it with an
   * error and keeps the member until its session times out (rdkafka_mock_handlers.c, 2.x).
   */
  leavesGroupOnStop: boolean;
  /**
   * Whether a failing message holds back the later messages of its key (and only those) until it is
   * handled or dead-lettered: Kafka's retry ladder does (the order per key is the contract there);
   * pg retries a job on its own and lets the others pass.
   */
  holdsKeys: boolean;
}

/** Consumer groups the suite uses (a Kafka fixture without topic creation makes their dead-letter topics first). */
export const CONTRACT_GROUPS = ['contract-poison'] as const;
export const CONTRACT_TOPICS: Topic[] = [TOPICS.orgEvents, TOPICS.authEvents, TOPICS.testcases];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How long a delivery may take: these cases prove what arrives, not how fast. A Kafka group's rebalances
 * (on the mock cluster each waits most of a session timeout) can take several of them on a loaded machine.
 */
const DELIVERY_MS = 90_000;

/**
 * Envelopes of one test: the handlers look only at these ids, since a Kafka
 * group new to a topic also reads what earlier tests published there.
 */
function batch(n: number, key = (i: number) => `key-${i}`) {
  const messages = Array.from({ length: n }, (_, i) => ({
    key: key(i),
    value: {
      id: randomUUID(),
      event: 'organization.member.removed',
      timestamp: new Date().toISOString(),
      organization_id: 'org-contract',
      data: { user_id: `u${i}` },
    } satisfies EventEnvelope,
  }));
  const ids = new Set<string>(messages.map((m) => m.value.id));
  return { messages, ids, mine: (e: EventEnvelope) => ids.has(e.id) };
}

let groupCounter = 0;
/** A group name new to this run (a fresh pg queue, a fresh Kafka group). */
const freshGroup = (name: string) => `${name}-${process.pid}-${++groupCounter}`;

/**
 * The behaviour every transport must show (issue 15): the same cases run
 * against pg (tests/pg.contract.test.ts) and Kafka (kafka.contract.test.ts).
 */
export function describeBusContract(fixture: () => BusFixture): void {
  const subs: Subscription[] = [];
  afterEach(async () => {
    for (const s of subs.splice(0)) await s.close().catch(() => undefined);
  });

  it('shares a group’s work across two processes and gives every group every message', async () => {
    const f = fixture();
    const [publisher, a1, a2, b1] = [await f.newBus(), await f.newBus(), await f.newBus(), await f.newBus()];
    const { messages, ids, mine } = batch(30);
    const byA1: string[] = [];
    const byA2: string[] = [];
    const byB: string[] = [];
    const record = (list: string[]) => async (e: EventEnvelope) => {
      if (!mine(e)) return;
      await sleep(20);
      list.push(e.id);
    };
    const [groupA, groupB] = [freshGroup('share-a'), freshGroup('share-b')];
    subs.push(await a1.subscribe({ topic: TOPICS.orgEvents, group: groupA, handler: record(byA1) }));
    subs.push(await a2.subscribe({ topic: TOPICS.orgEvents, group: groupA, handler: record(byA2) }));
    subs.push(await b1.subscribe({ topic: TOPICS.orgEvents, group: groupB, handler: record(byB) }));
    // Kafka: the first member rejoins when the second arrives; let the group settle before publishing.
    await sleep(1000);
    for (const m of messages) await publisher.publish(TOPICS.orgEvents, [m]);

    await eventually(async () => byA1.length + byA2.length >= 30 && byB.length >= 30, DELIVERY_MS);
    await sleep(1000); // time for a duplicate to show up
    expect([...byA1, ...byA2].sort()).toEqual([...ids].sort());
    expect(byA1.length).toBeGreaterThan(0);
    expect(byA2.length).toBeGreaterThan(0);
    expect([...byB].sort()).toEqual([...ids].sort());
  });

  it('hands a group only the event types it subscribed to, and every type to a group that named none', async () => {
    const f = fixture();
    const [publisher, a, b] = [await f.newBus(), await f.newBus(), await f.newBus()];
    const { messages, mine } = batch(8);
    messages.forEach((m, i) => {
      if (i % 2) m.value.event = 'organization.quota.warning';
    });
    const picked: string[] = [];
    const everything: string[] = [];
    const [groupA, groupB] = [freshGroup('picky'), freshGroup('all-types')];
    subs.push(await a.subscribe({ topic: TOPICS.orgEvents, group: groupA, events: ['organization.member.removed'], handler: async (e) => void (mine(e) && picked.push(e.event)) }));
    subs.push(await b.subscribe({ topic: TOPICS.orgEvents, group: groupB, handler: async (e) => void (mine(e) && everything.push(e.event)) }));
    await sleep(1000);
    await publisher.publish(TOPICS.orgEvents, messages);
    await eventually(async () => picked.length >= 4 && everything.length >= 8, DELIVERY_MS);
    await sleep(1000); // time for a wrong delivery to show up
    expect(picked).toEqual(Array(4).fill('organization.member.removed'));
    expect(everything.sort()).toEqual([...Array(4).fill('organization.member.removed'), ...Array(4).fill('organization.quota.warning')].sort());
  });

  it('lets one service consume several topics in one group across two processes', async () => {
    const f = fixture();
    const [publisher, p1, p2] = [await f.newBus(), await f.newBus(), await f.newBus()];
    const group = freshGroup('multi');
    const orgs = batch(10);
    const auths = batch(10);
    const seen: Array<{ topic: string; id: string }> = [];
    for (const bus of [p1, p2]) {
      for (const topic of [TOPICS.orgEvents, TOPICS.authEvents]) {
        subs.push(
          await bus.subscribe({
            topic,
            group,
            handler: async (e, meta) => {
              if (orgs.mine(e) || auths.mine(e)) seen.push({ topic: meta.topic, id: e.id });
            },
          }),
        );
      }
    }
    await publisher.publish(TOPICS.orgEvents, orgs.messages);
    await publisher.publish(TOPICS.authEvents, auths.messages);
    await eventually(async () => seen.length >= 20, DELIVERY_MS);
    await sleep(1000);
    expect(seen.filter((s) => s.topic === TOPICS.orgEvents).map((s) => s.id).sort()).toEqual([...orgs.ids].sort());
    expect(seen.filter((s) => s.topic === TOPICS.authEvents).map((s) => s.id).sort()).toEqual([...auths.ids].sort());
  });

  it('delivers a broadcast to every subscriber, published right after subscribe() resolves', async () => {
    const f = fixture();
    const [publisher, r1, r2] = [await f.newBus(), await f.newBus(), await f.newBus()];
    const group = freshGroup('bcast');
    const { messages, mine } = batch(1);
    const got1: string[] = [];
    const got2: string[] = [];
    subs.push(await r1.subscribe({ topic: TOPICS.authEvents, group, broadcast: true, handler: async (e) => void (mine(e) && got1.push(e.id)) }));
    subs.push(await r2.subscribe({ topic: TOPICS.authEvents, group, broadcast: true, handler: async (e) => void (mine(e) && got2.push(e.id)) }));
    await publisher.publish(TOPICS.authEvents, messages);
    await eventually(async () => got1.length === 1 && got2.length === 1, DELIVERY_MS);
    expect(got1).toEqual([messages[0]!.value.id]);
    expect(got2).toEqual([messages[0]!.value.id]);
  });

  it('delivers a message again after its handler failed', async () => {
    const f = fixture();
    const bus = await f.newBus();
    const { messages, mine } = batch(1);
    let calls = 0;
    const done: string[] = [];
    subs.push(
      await bus.subscribe({
        topic: TOPICS.testcases,
        group: freshGroup('redeliver'),
        handler: async (e) => {
          if (!mine(e)) return;
          calls += 1;
          if (calls === 1) throw new Error('first attempt fails');
          done.push(e.id);
        },
      }),
    );
    await bus.publish(TOPICS.testcases, messages);
    await eventually(async () => done.length === 1, DELIVERY_MS);
    expect(calls).toBe(2);
  });

  // Also the attempt limit: the poison is tried exactly maxAttempts times, then dead-lettered with its last error, and the group moves on.
  it('lets a poison message delay no other key, holds back only its own key, dead-letters it after the ladder, and replays it', async () => {
    const f = fixture();
    const [publisher, consumer, control] = [await f.newBus(), await f.newBus({ maxAttempts: 3 }), await f.newBus()];
    const group = CONTRACT_GROUPS[0];
    // A second group with no poison gives each message's delivery time without it (the transport's own latency).
    const controlAt = new Map<string, number>();
    subs.push(await control.subscribe({ topic: TOPICS.orgEvents, group: freshGroup('control'), handler: async (e) => void (others.mine(e) && controlAt.set(e.id, Date.now())) }));
    const poison = batch(1, () => 'poison-key');
    const behind = batch(1, () => 'poison-key');
    const others = batch(30, (i) => `other-${i}`);
    const poisonId = poison.messages[0]!.value.id;
    let poisonCalls = 0;
    let cured = false;
    const handledAt = new Map<string, number>();
    let poisonGaveUpAt = 0;
    subs.push(
      await consumer.subscribe({
        topic: TOPICS.orgEvents,
        group,
        handler: async (e) => {
          if (!(poison.mine(e) || behind.mine(e) || others.mine(e))) return;
          if (e.id === poisonId && !cured) {
            poisonCalls += 1;
            if (poisonCalls === 3) poisonGaveUpAt = Date.now();
            throw new Error(`poison ${poisonCalls}`);
          }
          if (!handledAt.has(e.id)) handledAt.set(e.id, Date.now());
        },
      }),
    );
    await sleep(500);
    // The poison first, then its key's next message and thirty other keys (sharing its partitions).
    await publisher.publish(TOPICS.orgEvents, [...poison.messages, ...behind.messages, ...others.messages]);
    await eventually(async () => [...others.ids].every((id) => handledAt.has(id) && controlAt.has(id)), DELIVERY_MS);
    const delays = [...others.ids].map((id) => handledAt.get(id)! - controlAt.get(id)!);
    // eslint-disable-next-line no-console
    console.info(`poison case: other keys' delivery vs a group without the poison: at most ${Math.max(...delays)} ms later`);
    expect(Math.max(...delays)).toBeLessThan(1000);

    const letters = await eventually(async () => {
      const found = (await f.deadLetters(TOPICS.orgEvents, group)).filter((l) => l.id === poisonId);
      return found.length ? found : undefined;
    }, 60_000);
    expect(poisonCalls).toBe(3);
    expect(letters).toHaveLength(1);
    expect(letters[0]!.error).toContain('poison 3');
    const behindId = behind.messages[0]!.value.id;
    await eventually(async () => handledAt.has(behindId), DELIVERY_MS);
    // Kafka: the key's next message waited for the poison to leave the ladder (the order per key).
    if (f.holdsKeys) expect(handledAt.get(behindId)!).toBeGreaterThanOrEqual(poisonGaveUpAt);

    cured = true;
    expect(await consumer.replayDeadLetters(TOPICS.orgEvents, group)).toBe(1);
    await eventually(async () => handledAt.has(poisonId), DELIVERY_MS);
    // Replayed once: a second replay finds nothing new.
    expect(await consumer.replayDeadLetters(TOPICS.orgEvents, group)).toBe(0);
  }, 180_000);

  it('keeps the order of one key’s messages', async () => {
    const f = fixture();
    const [publisher, consumer] = [await f.newBus(), await f.newBus()];
    const { messages, mine } = batch(60, () => 'ordered-key');
    const got: string[] = [];
    subs.push(await consumer.subscribe({ topic: TOPICS.testcases, group: freshGroup('order'), handler: async (e) => void (mine(e) && got.push(e.id)) }));
    // Batches like the outbox relay's, and single messages.
    await publisher.publish(TOPICS.testcases, messages.slice(0, 25));
    for (const m of messages.slice(25, 35)) await publisher.publish(TOPICS.testcases, [m]);
    await publisher.publish(TOPICS.testcases, messages.slice(35));
    await eventually(async () => got.length >= 60, DELIVERY_MS);
    expect(got).toEqual(messages.map((m) => m.value.id));
  });

  it('hands the rest of a batch to the group’s other process when one shuts down mid-batch', async () => {
    const f = fixture();
    // A process that left its group hands its work over at once; had it not, the work would wait for the
    // liveness timeout, which the deadline below does not reach. Where a clean leave cannot be seen (the mock
    // cluster), the liveness timeout is short and the deadline covers it and the rebalance after it: the case
    // still shows that the work of a stopped process is handed over and none is lost.
    const livenessMs = f.leavesGroupOnStop ? 30_000 : f.livenessMs;
    const deadline = f.leavesGroupOnStop ? 15_000 : 2 * livenessMs + 20_000;
    const [publisher, p1, p2] = [await f.newBus(), await f.newBus({ livenessMs }), await f.newBus({ livenessMs })];
    const group = freshGroup('shutdown');
    const { messages, ids, mine } = batch(12);
    const byP1: string[] = [];
    const byP2: string[] = [];
    const slow = (list: string[]) => async (e: EventEnvelope) => {
      if (!mine(e)) return;
      await sleep(300);
      list.push(e.id);
    };
    const sub1 = await p1.subscribe({ topic: TOPICS.orgEvents, group, handler: slow(byP1) });
    const sub2 = await p2.subscribe({ topic: TOPICS.orgEvents, group, handler: slow(byP2) });
    subs.push(sub1, sub2);
    await sleep(1000);
    await publisher.publish(TOPICS.orgEvents, messages);
    // The process that got work first leaves (on pg a publish's events travel as one job: one process holds them all).
    await eventually(async () => byP1.length + byP2.length >= 1, DELIVERY_MS);
    const [leaving, leavingSub, byLeaving, byStaying] = byP1.length > 0 ? [p1, sub1, byP1, byP2] : [p2, sub2, byP2, byP1];
    await leavingSub.close();
    await leaving.stop();
    await eventually(async () => new Set([...byLeaving, ...byStaying]).size >= 12, deadline);
    expect(new Set([...byLeaving, ...byStaying])).toEqual(ids);
    expect(byLeaving.length).toBeLessThan(12);
    expect(byStaying.length).toBeGreaterThan(0);
  }, 120_000);

  it('handles a message once even when its handler runs longer than the liveness timeout', async () => {
    const f = fixture();
    const [publisher, consumer] = [await f.newBus(), await f.newBus()];
    const { messages, mine } = batch(2, () => 'slow-key');
    const calls: string[] = [];
    subs.push(
      await consumer.subscribe({
        topic: TOPICS.testcases,
        group: freshGroup('slow'),
        handler: async (e) => {
          if (!mine(e)) return;
          calls.push(e.id);
          if (e.id === messages[0]!.value.id) await sleep(f.livenessMs + 3000);
        },
      }),
    );
    await publisher.publish(TOPICS.testcases, messages);
    await eventually(async () => calls.length >= 2, f.livenessMs + 30_000);
    await sleep(1000);
    expect(calls).toEqual(messages.map((m) => m.value.id));
  });
}
