import { EVENTS, TOPICS } from '@assay/contracts';
import type { EventEnvelope } from '@assay/bus';
import { METERED_EVENTS, meteredBy } from './usage.consumer.js';

// Data with every field any metered event reads, so an event meteredBy reacts to is metered here.
const data = { execution_id: 'e1', execution: { duration_ms: 31_000 }, pages: 3, session_id: 's1', url: 'http://shop.test/' };
const envelope = (event: string): EventEnvelope => ({ id: '00000000-0000-4000-8000-000000000001', event, timestamp: new Date().toISOString(), organization_id: 'o1', data });

describe('metering subscription', () => {
  it('asks the bus for exactly the events metering counts, among those of the topics it reads', () => {
    const read = Object.entries(EVENTS)
      .filter(([, c]) => c.topic === TOPICS.executionEvents || c.topic === TOPICS.discoveryEvents)
      .map(([name]) => name);
    expect(read.filter((name) => meteredBy(envelope(name)) !== null).sort()).toEqual([...METERED_EVENTS].sort());
  });
});
