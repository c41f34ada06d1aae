import { Ajv2020 } from 'ajv/dist/2020.js';
import { outboxBatch } from '@assay/bus';
import { ASSAY_VERSION, EVENTS } from '@assay/contracts';
import { previousRelease } from './previous-release.js';
import { instancesOf } from './schema-instances.js';

/**
 * Events written by this release are read by the previous release's consumers during a rolling upgrade
 * (and after a rollback): each current event type's instances, valid against its current schema, must be
 * valid against the previous release's schema of that type (deploy/upgrade/previous-release.json).
 */
const previous = previousRelease();
const ajv = new Ajv2020({ allErrors: true, strict: false });
const check = (schema: object, value: unknown) => {
  const validate = ajv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
};

/**
 * Differences the previous release's consumers are shown not to read, each with why. A release before
 * 0.2.0 validates an event only when writing it (its outbox), never when reading it, so a difference is
 * harmless only when no consumer of that release reads the field. Each entry must still be needed.
 */
const ACCEPTED: Record<string, Array<{ problem: RegExp; why: string }>> = {
  'discovery.flow.detected': [
    {
      problem: /^\/flow\/steps\/\d+\/action must be equal to one of the allowed values$/,
      why: "0.2.0 records press, dblclick, hover and wait_gone steps (39f861e); 0.1.0's only reader of discovery.flow.detected is the webhook dispatcher, which forwards data unread",
    },
  ],
};
const accepted = new Set<string>();

describe(`events of ${ASSAY_VERSION} read with the schemas of ${previous.version}`, () => {
  const shared = Object.keys(EVENTS).filter((t) => previous.events[t]);

  it('keeps every event type of the previous release, on the same topic', () => {
    const gone = Object.keys(previous.events).filter((t) => !EVENTS[t]);
    const moved = shared.filter((t) => EVENTS[t]!.topic !== previous.events[t]!.topic).map((t) => `${t}: ${previous.events[t]!.topic} -> ${EVENTS[t]!.topic}`);
    expect({ gone, moved }).toEqual({ gone: [], moved: [] });
    expect(shared.length).toBeGreaterThanOrEqual(25);
  });

  it.each(Object.keys(EVENTS).filter((t) => previous.events[t]))('%s: what this release writes, the previous release reads', (type) => {
    const instances = instancesOf(EVENTS[type]!.data as Record<string, unknown>);
    for (const value of instances) {
      expect(check(EVENTS[type]!.data, value)).toEqual([]);
      const problems = check(previous.events[type]!.data, value).filter((p) => {
        const entry = ACCEPTED[type]?.find((a) => a.problem.test(p));
        if (entry) accepted.add(`${type} ${entry.problem.source}`);
        return !entry;
      });
      expect({ value, problems }).toEqual({ value, problems: [] });
    }
  });

  it('writes an envelope with every field the previous release reads, and the version that wrote it', () => {
    const type = 'test.plan.started';
    const [data] = instancesOf(EVENTS[type]!.data as Record<string, unknown>);
    const { envelopes } = outboxBatch([{ event: type, organization_id: '00000000-0000-4000-8000-000000000001', data: data as Record<string, unknown> }]);
    const envelope = envelopes[0]! as unknown as Record<string, unknown>;
    for (const field of previous.envelope.required) expect({ field, present: envelope[field] !== undefined }).toEqual({ field, present: true });
    expect(envelope.version).toBe(ASSAY_VERSION);
  });

  it('needs every accepted difference still (none stays once the previous release reads it)', () => {
    expect([...accepted].sort()).toEqual(Object.entries(ACCEPTED).flatMap(([t, list]) => list.map((a) => `${t} ${a.problem.source}`)).sort());
  });

  it('finds a field the previous schema forbids (the check can fail)', () => {
    const type = 'test.plan.started';
    const narrowed = structuredClone(previous.events[type]!.data) as { additionalProperties?: boolean; properties: Record<string, unknown> };
    narrowed.additionalProperties = false;
    const value = { ...(instancesOf(EVENTS[type]!.data as Record<string, unknown>)[1] as object), shard_count: 2 };
    expect(check(narrowed, value)).toContain('/ must NOT have additional properties');
  });
});
