import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EventEnvelope } from '@assay/bus';
import { eventually } from '@assay/testing';
import { createSilentLogger } from '@assay/logger';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import { fanOut } from '../src/dispatch/intake.js';
import { SecretBox } from '../src/shared/secrets.js';
import { startReceiver, startWebhookService, TEST_EGRESS, type Receiver, type Received, type Tenant, type WebhookHarness } from './harness.js';

let svc: WebhookHarness;
let receiver: Receiver;
beforeAll(async () => {
  [svc, receiver] = await Promise.all([startWebhookService(), startReceiver()]);
});
afterAll(async () => {
  await receiver.close();
  await svc.close();
});

const MIN = 60_000;
const HOUR = 60 * MIN;

function caseCreated(t: Tenant, overrides: Partial<EventEnvelope> = {}): EventEnvelope {
  const id = randomUUID();
  return {
    id: randomUUID(),
    event: 'test.case.created',
    timestamp: svc.clock.now().toISOString(),
    organization_id: t.orgId,
    project_id: 'p-1',
    data: { test_case: { id, project_id: 'p-1', name: 'Login', status: 'active', priority: 'high', steps: [] }, source: 'api' },
    ...overrides,
  };
}

/** A webhook whose creation test event is already out of the way. */
async function hook(t: Tenant, path: string, overrides: Record<string, unknown> = {}) {
  const h = await t.webhook(`${receiver.url}${path}`, overrides);
  await svc.forgetDeliveries(h.id);
  return h;
}

async function deliveriesOf(webhookId: string) {
  return svc.database.db.selectFrom('deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('created_at').execute();
}

function verifyServiceSignature(r: Received, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(r.body).digest('hex')}`);
  const given = Buffer.from(r.headers['x-service-signature'] ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('delivery', () => {
  it('sends the test event on create with the spec envelope and both signatures, which node:crypto and standardwebhooks verify', async () => {
    const t = svc.tenant();
    const h = await t.webhook(`${receiver.url}/ok/create-${t.orgId}`);
    await svc.dispatcher.drain();
    const [req] = await receiver.requests(`/ok/create-${t.orgId}`);
    expect(req).toBeDefined();
    const body = JSON.parse(req!.body);
    expect(Object.keys(body).sort()).toEqual(['data', 'delivery_id', 'event', 'organization_id', 'timestamp', 'webhook_id']);
    expect(body).toMatchObject({ event: 'test.case.created', organization_id: t.orgId, webhook_id: h.id, delivery_id: h.test_delivery_id, data: { test: true } });
    expect(req!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'test.case.created',
      'x-service-delivery': h.test_delivery_id,
      'webhook-id': h.test_delivery_id,
      'webhook-timestamp': String(Math.floor(svc.clock.now().getTime() / 1000)),
    });
    expect(verifyServiceSignature(req!, h.secret)).toBe(true);
    expect(verifyServiceSignature(req!, `${h.secret}x`)).toBe(false);
    expect(new Webhook(h.standard_webhooks_secret).verify(req!.body, req!.headers)).toEqual(body);
    expect(() => new Webhook(h.standard_webhooks_secret).verify(req!.body.replace('test', 'tost'), req!.headers)).toThrow();

    const log = await t.call('GET', `/api/v1/webhooks/${h.id}/deliveries`);
    expect(log.body.data[0]).toMatchObject({ id: h.test_delivery_id, status: 'delivered', status_code: 200, response_body: 'ok', attempt_count: 1, error: null });
    expect(log.body.data[0].attempts).toEqual([{ attempt: 1, at: svc.clock.now().toISOString(), status_code: 200, response_time_ms: expect.any(Number), error: null }]);
  });

  it('follows the retry schedule (now, +1m, +5m, +15m, +1h, +3h, +6h) and succeeds when the receiver recovers', async () => {
    const t = svc.tenant({ plan: 'pro' });
    const h = await hook(t, `/fail/6/${t.orgId}`);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    const start = svc.clock.now().getTime();
    const attempts = async () => (await deliveriesOf(h.id))[0]!.attempt_count;
    await svc.dispatcher.drain();
    expect(await attempts()).toBe(1);
    let slot = start;
    for (const [i, delay] of [MIN, 5 * MIN, 15 * MIN, HOUR, 3 * HOUR, 6 * HOUR].entries()) {
      slot += delay;
      svc.clock.set(new Date(slot - 1));
      await svc.dispatcher.drain();
      expect({ before: slot - start, attempts: await attempts() }).toEqual({ before: slot - start, attempts: i + 1 });
      svc.clock.set(new Date(slot));
      await svc.dispatcher.drain();
      expect({ at: slot - start, attempts: await attempts() }).toEqual({ at: slot - start, attempts: i + 2 });
    }
    const [d] = await deliveriesOf(h.id);
    expect(d).toMatchObject({ status: 'delivered', attempt_count: 7, status_code: 200 });
    const rows = d!.attempts;
    expect(rows.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(rows.map((a) => (new Date(a.at).getTime() - start) / MIN)).toEqual([0, 1, 6, 21, 81, 261, 621]);
    expect(rows.map((a) => a.status_code)).toEqual([500, 500, 500, 500, 500, 500, 200]);
    expect((await receiver.requests(`/fail/6/${t.orgId}`)).map((r) => r.headers['x-service-delivery'])).toEqual(Array(7).fill(d!.id));
    expect((await t.call('GET', `/api/v1/webhooks/${h.id}`)).body.enabled).toBe(true);
  });

  it('fails the delivery after the plan’s last attempt (3 on Starter), disables the webhook with the reason and records a notification', async () => {
    const t = svc.tenant({ plan: 'starter' });
    const h = await hook(t, `/status/500/${t.orgId}`);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await svc.dispatcher.drain();
    svc.clock.advance(MIN);
    await svc.dispatcher.drain();
    svc.clock.advance(5 * MIN);
    await svc.dispatcher.drain();
    svc.clock.advance(15 * MIN);
    await svc.dispatcher.drain();
    expect(await receiver.requests(`/status/500/${t.orgId}`)).toHaveLength(3);
    const [d] = await deliveriesOf(h.id);
    expect(d).toMatchObject({ status: 'failed', attempt_count: 3, max_attempts: 3, status_code: 500, response_body: 'status 500', error: 'HTTP 500', next_attempt_at: null });
    const webhook = (await t.call('GET', `/api/v1/webhooks/${h.id}`)).body;
    expect(webhook).toMatchObject({ enabled: false, disabled_reason: `Delivery ${d!.id} (test.case.created) failed after 3 attempts: HTTP 500` });
    const notes = await svc.database.db.selectFrom('notifications').selectAll().where('org_id', '=', t.orgId).execute();
    expect(notes).toEqual([expect.objectContaining({ kind: 'webhook.disabled', webhook_id: h.id, message: expect.stringContaining('failed after 3 attempts') })]);
    // A disabled webhook gets no new deliveries; resend and test refuse until it is enabled again.
    expect(await fanOut(svc.database.db, caseCreated(t), svc.clock)).toBe(0);
    expect((await t.call('POST', `/api/v1/webhooks/${h.id}/deliveries/${d!.id}/resend`)).status).toBe(409);
    expect((await t.call('POST', `/api/v1/webhooks/${h.id}/test`, {})).status).toBe(409);
    const enabled = await t.call('PATCH', `/api/v1/webhooks/${h.id}`, { enabled: true, url: `${receiver.url}/ok/${t.orgId}` });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null });

    // Resend goes out at once with the same id and body, one more attempt.
    const resent = await t.call('POST', `/api/v1/webhooks/${h.id}/deliveries/${d!.id}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ id: d!.id, status: 'pending', max_attempts: 4, attempt_count: 3 });
    await svc.dispatcher.drain();
    const [again] = await receiver.requests(`/ok/${t.orgId}`);
    expect(again!.body).toBe(d!.body);
    const after = (await t.call('GET', `/api/v1/webhooks/${h.id}/deliveries`)).body.data[0];
    expect(after).toMatchObject({ status: 'delivered', attempt_count: 4, status_code: 200 });
    expect(after.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 500, 200]);
    expect((await t.call('POST', `/api/v1/webhooks/${h.id}/deliveries/${randomUUID()}/resend`)).status).toBe(404);
  });

  it('disables the webhook at once on 410 Gone', async () => {
    const t = svc.tenant();
    const h = await hook(t, `/status/410/${t.orgId}`);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await svc.dispatcher.drain();
    const rows = await deliveriesOf(h.id);
    expect(rows.map((r) => [r.status, r.attempt_count, r.status_code])).toEqual([['failed', 1, 410], ['failed', 1, 410]]);
    const webhook = (await t.call('GET', `/api/v1/webhooks/${h.id}`)).body;
    expect(webhook.enabled).toBe(false);
    expect(webhook.disabled_reason).toMatch(/410 Gone/);
  });

  it('honours Retry-After on 429 when it is later than the schedule slot', async () => {
    const t = svc.tenant();
    const h = await hook(t, `/retry-after/600/${t.orgId}`);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    const sentAt = svc.clock.now().getTime();
    await svc.dispatcher.drain();
    const [d] = await deliveriesOf(h.id);
    expect(d).toMatchObject({ status: 'pending', attempt_count: 1, status_code: 429, response_body: 'slow down' });
    expect(d!.next_attempt_at!.getTime() - sentAt).toBe(600_000);
    svc.clock.advance(5 * MIN);
    await svc.dispatcher.drain();
    expect((await deliveriesOf(h.id))[0]!.attempt_count).toBe(1);
    svc.clock.advance(5 * MIN);
    await svc.dispatcher.drain();
    expect((await deliveriesOf(h.id))[0]!.attempt_count).toBe(2);
    await t.call('DELETE', `/api/v1/webhooks/${h.id}`);
  });

  it('counts no answer within 5 seconds as a failure and retries', async () => {
    const t = svc.tenant();
    const h = await hook(t, `/hang/${t.orgId}`);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    const started = Date.now();
    expect(await svc.dispatcher.runOnce()).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
    const [d] = await deliveriesOf(h.id);
    expect(d).toMatchObject({ status: 'pending', attempt_count: 1, status_code: null, error: 'No answer within 5 s' });
    expect(d!.next_attempt_at!.getTime() - svc.clock.now().getTime()).toBe(MIN);
    await t.call('DELETE', `/api/v1/webhooks/${h.id}`);
  }, 20_000);

  it('keeps the first 4 KB of a response body and filters and pages the delivery log', async () => {
    const t = svc.tenant();
    const h = await hook(t, `/big/${t.orgId}`, { events: ['test.case.created', 'test.case.deleted'] });
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await fanOut(svc.database.db, caseCreated(t, { event: 'test.case.deleted', data: { test_case_id: 'c', name: 'x', permanent: true } }), svc.clock);
    await svc.dispatcher.drain();
    const all = await t.call('GET', `/api/v1/webhooks/${h.id}/deliveries?limit=2`);
    expect(all.body.pagination).toEqual({ limit: 2, offset: 0, total: 3 });
    expect(all.body.data[0].response_body).toHaveLength(4096);
    const deleted = await t.call('GET', `/api/v1/webhooks/${h.id}/deliveries?event=test.case.deleted&status=delivered`);
    expect(deleted.body.data.map((d: { event: string }) => d.event)).toEqual(['test.case.deleted']);
    expect((await t.call('GET', `/api/v1/webhooks/${h.id}/deliveries?status=failed`)).body.pagination.total).toBe(0);
    for (const q of ['status=lost', 'event=nope', 'limit=101', 'offset=-1']) {
      const r = await t.call('GET', `/api/v1/webhooks/${h.id}/deliveries?${q}`);
      expect({ q, status: r.status, error: r.body.error }).toEqual({ q, status: 400, error: 'validation_error' });
    }
  });

  it('purges finished deliveries after the plan’s history period (7 days on Starter)', async () => {
    const t = svc.tenant({ plan: 'starter' });
    const h = await hook(t, `/ok/purge-${t.orgId}`);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await svc.dispatcher.drain();
    const [d] = await deliveriesOf(h.id);
    expect(d!.expires_at.getTime() - d!.created_at.getTime()).toBe(7 * 24 * HOUR);
    const purger = svc.newDispatcher();
    svc.clock.advance(7 * 24 * HOUR + 1000);
    expect(await purger.purge()).toBeGreaterThanOrEqual(1);
    expect(await deliveriesOf(h.id)).toEqual([]);
  });

  it('signs with both secrets in webhook-signature for 24 hours after a rotation', async () => {
    // standardwebhooks checks webhook-timestamp against the real clock.
    svc.clock.set(new Date());
    const t = svc.tenant();
    const h = await hook(t, `/ok/rotate-${t.orgId}`);
    const rotated = (await t.call('POST', `/api/v1/webhooks/${h.id}/rotate-secret`)).body;
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await svc.dispatcher.drain();
    const [req] = await receiver.requests(`/ok/rotate-${t.orgId}`);
    expect(req!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyServiceSignature(req!, rotated.secret)).toBe(true);
    expect(new Webhook(rotated.standard_webhooks_secret).verify(req!.body, req!.headers)).toBeTruthy();
    expect(new Webhook(h.standard_webhooks_secret).verify(req!.body, req!.headers)).toBeTruthy();

    svc.clock.advance(24 * HOUR + 1000);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await svc.dispatcher.drain();
    const later = (await receiver.requests(`/ok/rotate-${t.orgId}`))[1]!;
    expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    // standardwebhooks checks the timestamp against the real clock; the signature itself is what matters here.
    const sign = (secret: string) => `v1,${createHmac('sha256', secret).update(`${later.headers['webhook-id']}.${later.headers['webhook-timestamp']}.${later.body}`).digest('base64')}`;
    expect(later.headers['webhook-signature']).toBe(sign(rotated.secret));
    expect(later.headers['webhook-signature']).not.toBe(sign(h.secret));
  });

  it('records the rest of a batch when a webhook is deleted while its delivery is in flight', async () => {
    const t = svc.tenant();
    const slow = await hook(t, `/slow/800/${t.orgId}`);
    const ok = await hook(t, `/ok/batch-${t.orgId}`);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    const round = svc.dispatcher.runOnce();
    await eventually(async () => (await receiver.requests(`/slow/800/${t.orgId}`)).length === 1);
    expect((await t.call('DELETE', `/api/v1/webhooks/${slow.id}`)).status).toBe(200);
    await round;
    expect(await deliveriesOf(ok.id)).toEqual([expect.objectContaining({ status: 'delivered', attempt_count: 1, attempts: [expect.objectContaining({ attempt: 1, status_code: 200 })] })]);
    // Nothing of the deleted webhook is left, on the queue either.
    expect(await deliveriesOf(slow.id)).toEqual([]);
    expect(await svc.database.db.selectFrom('delivery_queue').leftJoin('deliveries', 'deliveries.id', 'delivery_queue.delivery_id').select('delivery_queue.delivery_id').where('deliveries.id', 'is', null).execute()).toEqual([]);
  });

  it('fails only the delivery whose stored secret cannot be decrypted', async () => {
    const t = svc.tenant();
    const broken = await hook(t, `/ok/broken-${t.orgId}`);
    const fine = await hook(t, `/ok/fine-${t.orgId}`);
    await svc.database.db.updateTable('webhooks').set({ secret_enc: new SecretBox('another-key-0123456789abcdef0123456789').seal('x'.repeat(30)) }).where('id', '=', broken.id).execute();
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await svc.dispatcher.drain();
    expect(await deliveriesOf(fine.id)).toEqual([expect.objectContaining({ status: 'delivered' })]);
    expect(await deliveriesOf(broken.id)).toEqual([expect.objectContaining({ status: 'pending', attempt_count: 1, error: expect.stringMatching(/cannot be decrypted/) })]);
    expect(await receiver.requests(`/ok/broken-${t.orgId}`)).toEqual([]);
    await t.call('DELETE', `/api/v1/webhooks/${broken.id}`);
  });

  it('stops starting sends when the batch time is up and puts the rest back unsent, uncounted', async () => {
    const t = svc.tenant();
    const h = await hook(t, `/ok/lease-${t.orgId}`, { events: ['test.case.deleted'] });
    for (let i = 0; i < 30; i++) await fanOut(svc.database.db, { ...caseCreated(t), event: 'test.case.deleted', data: { test_case_id: `c${i}`, name: 'x', permanent: true } }, svc.clock);
    // Every reading of this clock is 2 s later: the batch's 30 s run out during the batch.
    let t0 = svc.clock.now().getTime();
    const hasty = new Dispatcher({ db: svc.database.db, secrets: svc.secrets, logger: createSilentLogger(), egress: TEST_EGRESS, clock: { now: () => new Date((t0 += 2000)) }, concurrency: 4, batchSeconds: 30 });
    await hasty.runOnce();
    const rows = await deliveriesOf(h.id);
    const sent = rows.filter((r) => r.attempt_count === 1);
    const back = rows.filter((r) => r.attempt_count === 0);
    expect(sent.length).toBeGreaterThan(0);
    expect(back.length).toBeGreaterThan(0);
    expect(sent.length + back.length).toBe(30);
    expect(back.every((r) => r.status === 'pending' && r.attempts.length === 0)).toBe(true);
    const queued = await svc.database.db.selectFrom('delivery_queue').select('delivery_id').where('delivery_id', 'in', back.map((r) => r.id)).execute();
    expect(queued).toHaveLength(back.length);
    expect((await receiver.requests(`/ok/lease-${t.orgId}`)).length).toBe(sent.length);
    await hasty.stop();
    await t.call('DELETE', `/api/v1/webhooks/${h.id}`);
  });

  it('holds a delivery over its webhook\'s 100 per minute back to the next minute, unsent and uncounted, and sends it then', async () => {
    const t = svc.tenant();
    const h = await hook(t, `/ok/rate-${t.orgId}`);
    const minute = Math.floor(svc.clock.now().getTime() / MIN) * MIN;
    // Another replica sent this webhook's 100 of this minute already.
    await svc.database.db.insertInto('rate_counters').values({ key: `w:${h.id}|minute`, window_start: new Date(minute), count: 100 }).execute();
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await svc.dispatcher.drain();
    expect(await receiver.requests(`/ok/rate-${t.orgId}`)).toHaveLength(0);
    const [held] = await deliveriesOf(h.id);
    expect(held).toMatchObject({ status: 'pending', attempt_count: 0, attempts: [] });
    expect(held!.next_attempt_at!.getTime()).toBe(minute + MIN);
    const queued = await svc.database.db.selectFrom('delivery_queue').select('next_attempt_at').where('delivery_id', '=', held!.id).execute();
    expect(queued.map((q) => q.next_attempt_at.getTime())).toEqual([minute + MIN]);

    svc.clock.set(new Date(minute + MIN));
    await svc.dispatcher.drain();
    expect(await receiver.requests(`/ok/rate-${t.orgId}`)).toHaveLength(1);
    expect((await deliveriesOf(h.id))[0]).toMatchObject({ status: 'delivered', attempt_count: 1 });
    const counted = await svc.database.db.selectFrom('rate_counters').select('count').where('key', '=', `w:${h.id}|minute`).where('window_start', '=', new Date(minute + MIN)).executeTakeFirst();
    expect(counted?.count).toBe(1);
  });

  it('counts a delivery sent in the first minute of a UTC day in both its minute and its day', async () => {
    const t = svc.tenant();
    const h = await hook(t, `/ok/midnight-${t.orgId}`);
    // The minute's window starts when the day's does: both counters must still be kept apart.
    const midnight = Date.UTC(2031, 0, 1);
    svc.clock.set(new Date(midnight + 30_000));
    // Earlier that day (by another replica's count): 4 sent; none yet in this minute.
    await svc.database.db.insertInto('rate_counters').values({ key: `w:${h.id}`, window_start: new Date(midnight), count: 4 }).execute();
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await fanOut(svc.database.db, caseCreated(t), svc.clock);
    await svc.dispatcher.drain();
    expect(await receiver.requests(`/ok/midnight-${t.orgId}`)).toHaveLength(2);
    expect((await deliveriesOf(h.id)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
    const counters = await svc.database.db.selectFrom('rate_counters').select(['key', 'count']).where('key', 'like', `w:${h.id}%`).where('window_start', '=', new Date(midnight)).orderBy('key').execute();
    expect(counters).toEqual([
      { key: `w:${h.id}`, count: 6 },
      { key: `w:${h.id}|minute`, count: 2 },
    ]);
  });

  it('sends a test event of the chosen type on demand', async () => {
    const t = svc.tenant();
    const h = await hook(t, `/ok/test-${t.orgId}`);
    const r = await t.call('POST', `/api/v1/webhooks/${h.id}/test`, { event: 'billing.payment.failed' });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ event: 'billing.payment.failed', test: true, status: 'pending', event_id: null });
    await svc.dispatcher.drain();
    const [req] = await receiver.requests(`/ok/test-${t.orgId}`);
    expect(JSON.parse(req!.body)).toMatchObject({ event: 'billing.payment.failed', delivery_id: r.body.id, data: { test: true } });
    expect((await t.call('POST', `/api/v1/webhooks/${h.id}/test`, { event: 'nope' })).status).toBe(400);
  });
});
