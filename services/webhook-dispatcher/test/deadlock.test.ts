import pg from 'pg';
import { sql } from '@assay/db';
import { startWebhookService } from './harness.js';
import { useHarness } from '@assay/testing';

const svc = useHarness(() => startWebhookService());

describe('deleting a webhook while a delivery batch holds its rows', () => {
  it('answers 200 after Postgres breaks the deadlock by aborting the delete, which then runs again', async () => {
    const t = svc.tenant();
    const hook = await t.webhook('https://hooks.example.invalid/deadlock');
    const [delivery] = await svc.database.db.selectFrom('deliveries').select('id').where('webhook_id', '=', hook.id).execute();
    expect(delivery).toBeDefined();

    // A delivery batch, step by step on its own connection, in the dispatcher's order:
    // it records a result on the delivery, then disables the webhook after its last failure.
    const batch = new pg.Client({ connectionString: svc.testDb.url });
    await batch.connect();
    try {
      await batch.query('begin');
      // It outwaits the delete in deadlock detection, so the delete is the side Postgres aborts.
      await batch.query(`set local deadlock_timeout = '30s'`);
      await batch.query('update webhook.deliveries set attempt_count = attempt_count + 1 where id = $1', [delivery!.id]);

      // The delete locks the webhook, then its cascade waits for the batch's delivery row.
      const deleting = t.call('DELETE', `/api/v1/webhooks/${hook.id}`);
      // Watched from another connection: inside a transaction pg_stat_activity is a snapshot.
      const waiting = async () => (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%delete from webhooks%'`.execute(svc.database.db)).rows[0]!.n > 0;
      const deadline = Date.now() + 20_000;
      while (!(await waiting())) {
        if (Date.now() > deadline) throw new Error('the delete never waited for the batch');
        await new Promise((r) => setTimeout(r, 20));
      }
      // The batch now wants the webhook row the delete holds: a cycle, and after 1 s Postgres aborts the delete.
      await batch.query(`update webhook.webhooks set enabled = false, disabled_reason = 'failed' where id = $1`, [hook.id]);
      await batch.query('commit');

      const res = await deleting;
      expect(res).toMatchObject({ status: 200, body: { id: hook.id, deleted: true } });
      expect(await svc.database.db.selectFrom('webhooks').select('id').where('id', '=', hook.id).execute()).toEqual([]);
      expect(await svc.database.db.selectFrom('deliveries').select('id').where('webhook_id', '=', hook.id).execute()).toEqual([]);
    } finally {
      await batch.end();
    }
  });
});
