import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { TOPICS } from '@assay/contracts';
import { createSilentLogger } from '@assay/logger';
import { createTestDatabase, eventually, type TestDatabase } from '@assay/testing';
import { PgBus, type EventEnvelope } from '@assay/bus';

jest.setTimeout(60_000);
const run = promisify(execFile);

/**
 * `make replay-dead-letters` runs libs/bus/src/replay-cli.ts: here as a real process on `pg` (the
 * Kafka replay itself is proven by the contract's poison case): a dead letter goes back to its group.
 */
describe('replay-dead-letters (the CLI)', () => {
  let db: TestDatabase;
  const buses: PgBus[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const b of buses) await b.stop();
    await db?.drop();
  });

  const cli = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', path.join('libs', 'bus', 'src', 'replay-cli.ts'), ...args], {
      env: { PATH: process.env.PATH ?? '', BUS: 'pg', DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
    });

  it('hands a group its dead letter back; refuses an unknown topic', async () => {
    const bus = new PgBus({ connectionString: db.url, logger: createSilentLogger(), maxAttempts: 1 });
    await bus.start();
    buses.push(bus);
    const group = 'replay-cli';
    const id = randomUUID();
    let cured = false;
    const handled: string[] = [];
    const sub = await bus.subscribe({
      topic: TOPICS.orgEvents,
      group,
      handler: async (e: EventEnvelope) => {
        if (e.id !== id) return;
        if (!cured) throw new Error('not yet');
        handled.push(e.id);
      },
    });
    await bus.publish(TOPICS.orgEvents, [{ key: 'k', value: { id, event: 'organization.member.removed', timestamp: new Date().toISOString(), organization_id: 'org-replay', data: {} } }]);
    await eventually(async () => (await bus.deadLetterCount(TOPICS.orgEvents, group)) === 1, 20_000);
    cured = true;
    expect((await cli('--topic', TOPICS.orgEvents, '--group', group)).stdout).toBe(`replayed 1 dead letter(s) of ${TOPICS.orgEvents} for group ${group}\n`);
    await eventually(async () => handled.length === 1, 20_000);
    await sub.close();
    await expect(cli('--topic', 'nope', '--group', group)).rejects.toMatchObject({ stderr: expect.stringContaining('--topic (TOPIC=) must be one of') });
  });
});
