import { Client } from 'pg';
import { createSilentLogger } from '@assay/logger';
import { createTestDatabase, type TestDatabase } from '@assay/testing';
import { deadLetterQueue, PgBus, type DeadLetter } from '@assay/bus';
import { describeBusContract, type BusFixture } from './contract.js';

jest.setTimeout(120_000);

let testDb: TestDatabase;
const buses: PgBus[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  for (const b of buses) await b.stop();
  await testDb.drop();
});

const fixture: BusFixture = {
  async newBus(opts) {
    const bus = new PgBus({ connectionString: testDb.url, logger: createSilentLogger(), ...(opts?.maxAttempts ? { maxAttempts: opts.maxAttempts } : {}) });
    await bus.start();
    buses.push(bus);
    return bus;
  },
  async deadLetters(topic, group) {
    const client = new Client({ connectionString: testDb.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ data: DeadLetter }>('select data from bus.job where name = $1', [deadLetterQueue(topic, group)]);
      return rows.map((r) => ({ id: r.data.value.id, error: r.data.error }));
    } finally {
      await client.end();
    }
  },
  // pg-boss has no session: a job expires after 15 minutes; the slow-handler case runs its handler past this.
  livenessMs: 6000,
  // A stopped worker holds no jobs: the next poll of another fetches them.
  leavesGroupOnStop: true,
    holdsKeys: false,
};

describe('bus contract on pg', () => {
  describeBusContract(() => fixture);
});
