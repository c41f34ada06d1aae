import { AssignerProtocol, PartitionAssigners } from 'kafkajs';
import { kafkaGroupId } from './kafka.transport.js';

/**
 * Issue 15: the webhook dispatcher put one kafkajs consumer per topic into one
 * group. The group leader assigns with kafkajs's round-robin assigner over the
 * topics *it* subscribed to, so the other topics get no consumer at all. This
 * runs kafkajs's own assigner on such a group (no broker: the assigner only
 * reads partition counts from the cluster's metadata) and then on the groups
 * the Kafka transport forms.
 */
const PARTITIONS = 3;
const cluster = { findTopicPartitionMetadata: () => Array.from({ length: PARTITIONS }, (_, partitionId) => ({ partitionId })) };

interface Member {
  memberId: string;
  topics: string[];
}

/** What kafkajs's leader does in SYNC: assign over the leader's own subscribed topics. */
async function assignAsLeader(members: Member[], leader: Member): Promise<Map<string, Record<string, number[]>>> {
  const assigner = PartitionAssigners.roundRobin({ cluster } as never);
  const encoded = members.map((m) => ({ memberId: m.memberId, memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics: m.topics, userData: Buffer.alloc(0) }) }));
  const result = await assigner.assign({ members: encoded, topics: leader.topics });
  return new Map(result.map((r) => [r.memberId, AssignerProtocol.MemberAssignment.decode(r.memberAssignment)!.assignment]));
}

/** Partitions a member may consume: kafkajs drops assigned topics the member did not subscribe to. */
function consumed(members: Member[], assignment: Map<string, Record<string, number[]>>): Map<string, Set<number>> {
  const byTopic = new Map<string, Set<number>>();
  for (const m of members) {
    for (const [topic, partitions] of Object.entries(assignment.get(m.memberId) ?? {})) {
      if (!m.topics.includes(topic)) continue;
      const set = byTopic.get(topic) ?? new Set<number>();
      for (const p of partitions) set.add(p);
      byTopic.set(topic, set);
    }
  }
  return byTopic;
}

const TOPICS = ['assay.executions.events', 'assay.discovery.events', 'assay.analysis.events'];

describe("kafkajs's round-robin assigner", () => {
  it('leaves topics unconsumed when one group holds consumers of different topics (the bug kept out)', async () => {
    const members = TOPICS.map((topic, i) => ({ memberId: `dispatcher-${i}`, topics: [topic] }));
    const assignment = await assignAsLeader(members, members[0]!);
    const byTopic = consumed(members, assignment);
    // Only the leader's topic is assigned at all, and partly to members that drop it.
    expect([...byTopic.keys()]).toEqual([TOPICS[0]]);
    expect(byTopic.get(TOPICS[0]!)!.size).toBeLessThan(PARTITIONS);
  });

  it('assigns every partition of every topic once with the transport’s groups, one per (group, topic)', async () => {
    // Two dispatcher processes, each subscribing to every topic: the transport makes one Kafka group per topic.
    const groups = new Map<string, Member[]>();
    for (const process of ['p1', 'p2']) {
      for (const topic of TOPICS) {
        const id = kafkaGroupId('webhook-dispatcher', topic);
        groups.set(id, [...(groups.get(id) ?? []), { memberId: `${process}-${topic}`, topics: [topic] }]);
      }
    }
    expect(groups.size).toBe(TOPICS.length);
    for (const [, members] of groups) {
      // Whoever leads, every member of a group subscribed to the same topic.
      for (const leader of members) {
        const assignment = await assignAsLeader(members, leader);
        const byTopic = consumed(members, assignment);
        expect([...byTopic.keys()]).toEqual(members[0]!.topics);
        expect([...byTopic.values()][0]!.size).toBe(PARTITIONS);
        const total = [...assignment.values()].flatMap((a) => Object.values(a).flat()).length;
        expect(total).toBe(PARTITIONS); // each partition to exactly one member
      }
    }
  });
});
