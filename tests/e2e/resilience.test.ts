import pg from 'pg';
import { eventually } from '@assay/testing';
import { bearer, call } from './support/http.js';
import { launchForFile } from './support/launcher.js';

// Postgres dropping every connection, as a restart or a failover does.
jest.setTimeout(120_000);

const launched = launchForFile();




describe('a launched Assay when Postgres drops its connections', () => {
  // Postgres terminating every connection (a restart, a failover) must not kill a
  // service: the outbox relay's LISTEN connection reconnects, pools replace clients.
  it('keeps serving: the printed key lists itself again within 10 s', async () => {
    const list = () => call(launched.assay.gatewayUrl, 'GET', '/api/service-keys', { headers: bearer(launched.assay.serviceKey) });
    expect((await list()).status).toBe(200);

    const client = new pg.Client({ connectionString: launched.database.url });
    await client.connect();
    try {
      const killed = await client.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await client.end();
    }

    const again = await eventually(async () => {
      const r = await list();
      return r.status === 200 ? r : undefined;
    }, 10_000, 250);
    expect(again.body.keys).toHaveLength(1);
    expect(launched.assay.output()).not.toContain("Unhandled 'error' event");
    expect(launched.assay.output()).not.toContain('exited unexpectedly');
  });
});
