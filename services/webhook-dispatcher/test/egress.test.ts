import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';
import { startReceiver, startWebhookService, type Receiver, type WebhookHarness } from './harness.js';

// Registration is checked without a packet leaving: IP literals need no
// lookup, `.invalid` names never resolve (RFC 6761), and no dispatcher runs
// against the strict service. Connect-time refusals use the loopback receiver
// under a policy that refuses it; real private addresses and a DNS answer that
// changes after registration are in the network-namespace e2e (tests/netns).
let strict: WebhookHarness;
let svc: WebhookHarness;
let receiver: Receiver;
beforeAll(async () => {
  [strict, svc, receiver] = await Promise.all([startWebhookService({ egress: new EgressPolicy() }), startWebhookService(), startReceiver()]);
});
afterAll(async () => {
  await receiver.close();
  await Promise.all([strict.close(), svc.close()]);
});

describe('the egress policy on webhooks', () => {
  it('refuses to register or move a webhook to a metadata, private or loopback host in any spelling', async () => {
    const t = strict.tenant();
    const refused: Array<[string, RegExp]> = [
      ['https://169.254.169.254/latest/meta-data/', /cloud metadata address 169\.254\.169\.254/],
      ['https://[::ffff:169.254.169.254]/', /cloud metadata address/],
      ['https://[fd00:ec2::254]/', /cloud metadata address/],
      ['https://metadata.google.internal./', /cloud metadata name/],
      ['https://10.0.0.5/', /private address 10\.0\.0\.5/],
      ['https://[::ffff:10.0.0.5]/', /private address .*10\.0\.0\.5/],
      ['https://100.64.0.1/', /carrier-grade NAT/],
      ['https://[fd12::1]/', /unique local/],
      ['https://2130706433/', /loopback address 127\.0\.0\.1/],
      ['https://0x7f.1/', /loopback address 127\.0\.0\.1/],
      ['https://localhost/', /loopback/],
      ['https://0.0.0.0/', /unspecified/],
      ['https://[fe80::1]/', /link-local/],
    ];
    for (const [url, reason] of refused) {
      const r = await t.call('POST', '/api/v1/webhooks', { name: 'h', url, events: ['test.case.created'] });
      expect({ url, status: r.status, error: r.body.error }).toEqual({ url, status: 400, error: 'validation_error' });
      expect({ url, detail: r.body.details[0] }).toEqual({ url, detail: { field: 'url', message: expect.stringMatching(/^blocked by the egress policy \(/) } });
      expect({ url, message: r.body.details[0].message }).toEqual({ url, message: expect.stringMatching(reason) });
    }
    expect(await strict.database.db.selectFrom('webhooks').select('id').where('org_id', '=', t.orgId).execute()).toEqual([]);

    // A public literal and a name that does not resolve now are accepted (checked again on every connection).
    const ok = await t.webhook('https://93.184.216.34/hook');
    await t.webhook('https://hooks.example.invalid/hook');
    const moved = await t.call('PATCH', `/api/v1/webhooks/${ok.id}`, { url: 'https://[::ffff:a9fe:a9fe]/x' });
    expect(moved).toMatchObject({ status: 400, body: { error: 'validation_error', details: [{ field: 'url', message: expect.stringMatching(/cloud metadata/) }] } });
    expect((await t.call('GET', `/api/v1/webhooks/${ok.id}`)).body.url).toBe('https://93.184.216.34/hook');
  });

  it('checks the address each delivery connects to, whatever was allowed when the webhook was registered', async () => {
    const t = svc.tenant();
    const hook = await t.webhook(`${receiver.url}/egress/${t.orgId}`);
    // The policy changed (or the name now resolves elsewhere): this dispatcher refuses 127.0.0.1.
    const refusing = svc.newDispatcher({ egress: new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true, denyCidrs: ['127.0.0.1/32'] }) });
    await refusing.drain();
    const log = await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries`);
    // The create-time test event is sent once and not retried.
    expect(log.body.data[0]).toMatchObject({ status: 'failed', attempts: [{ attempt: 1, status_code: null, error: expect.stringMatching(/^EGRESS_DENIED: http:\/\/127\.0\.0\.1:\d+ blocked by the egress policy \(127\.0\.0\.1 is in EGRESS_DENY_CIDRS\)$/) }] });
    expect(await receiver.requests(`/egress/${t.orgId}`)).toEqual([]);

    // Resent under the policy of registration, it goes out.
    expect((await t.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${log.body.data[0].id}/resend`)).status).toBeLessThan(300);
    await svc.dispatcher.drain();
    expect(await receiver.requests(`/egress/${t.orgId}`)).toHaveLength(1);
  });
});
