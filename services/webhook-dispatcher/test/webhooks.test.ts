import { contractValidator } from '@assay/contracts';
import { startWebhookService } from './harness.js';
import { useHarness } from '@assay/testing';

const svc = useHarness(() => startWebhookService());

const valid = (body: unknown, schema: string) => expect(contractValidator().validate(schema, body)).toEqual([]);

describe('webhook registration', () => {
  it('registers a webhook, shows a generated secret once, stores it encrypted and queues a test event', async () => {
    const t = svc.tenant();
    const r = await t.call('POST', '/api/v1/webhooks', {
      name: ' CI alerts ',
      url: 'https://hooks.example.invalid/assay',
      events: ['test.execution.failed', 'test.plan.completed'],
      filters: { priorities: ['critical'] },
    });
    expect(r.status).toBe(201);
    valid(r.body, 'WebhookCreated');
    valid(r.body, 'Webhook');
    expect(r.body).toMatchObject({
      name: 'CI alerts',
      url: 'https://hooks.example.invalid/assay',
      events: ['test.execution.failed', 'test.plan.completed'],
      filters: { projects: [], priorities: ['critical'] },
      conditional_rules: null,
      enabled: true,
      disabled_reason: null,
    });
    expect(r.body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.body.standard_webhooks_secret).toBe(`whsec_${Buffer.from(r.body.secret).toString('base64')}`);

    const got = await t.call('GET', `/api/v1/webhooks/${r.body.id}`);
    expect(got.body).not.toHaveProperty('secret');
    expect(JSON.stringify(got.body)).not.toContain(r.body.secret);
    const row = await svc.database.db.selectFrom('webhooks').selectAll().where('id', '=', r.body.id).executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(r.body.secret);
    expect(svc.secrets.open(row.secret_enc)).toBe(r.body.secret);

    const deliveries = await t.call('GET', `/api/v1/webhooks/${r.body.id}/deliveries`);
    expect(deliveries.body.data).toEqual([expect.objectContaining({ id: r.body.test_delivery_id, event: 'test.execution.failed', test: true, status: 'pending', max_attempts: 1 })]);
    valid(deliveries.body, 'WebhookDeliveryList');
  });

  it('keeps a given secret of at least 24 characters and refuses a shorter one', async () => {
    const t = svc.tenant();
    const ok = await t.call('POST', '/api/v1/webhooks', { name: 'a', url: 'https://x.example.invalid', events: ['test.case.created'], secret: 'abcdefghijklmnopqrstuvwx' });
    expect(ok.status).toBe(201);
    expect(ok.body.secret).toBe('abcdefghijklmnopqrstuvwx');
    const short = await t.call('POST', '/api/v1/webhooks', { name: 'a', url: 'https://x.example.invalid', events: ['test.case.created'], secret: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.details).toEqual([{ field: 'secret', message: expect.stringMatching(/24/) }]);
  });

  it('refuses unknown event types, bad filters, bad rules and non-HTTPS URLs with field details', async () => {
    const t = svc.tenant();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ events: ['test.case.exploded'] }, 'events.0', /must be one of/],
      [{ events: [] }, 'events', /fewer than 1|at least 1|NOT have fewer/],
      [{ filters: { priorities: ['low'] } }, 'filters.priorities.0', /critical, high/],
      [{ filters: { colours: ['red'] } }, 'filters.colours', /not a known field/],
      [{ url: 'http://hooks.example.invalid/x' }, 'url', /HTTPS/],
      [{ url: 'ftp://127.0.0.1/x' }, 'url', /https/],
      [{ url: 'not a url' }, 'url', /absolute URL/],
      [{ conditional_rules: { rules: [{ field: 'pass_rate', op: 'between', value: 3 }] } }, 'conditional_rules.rules.0.op', /eq, ne/],
      [{ conditional_rules: { rules: [{ field: 'time_of_day', op: 'between', value: '9-5' }] } }, 'conditional_rules.rules.0.value', /HH:MM/],
      [{ conditional_rules: { rules: [{ field: 'code', op: 'eq', value: 'process.exit()' }] } }, 'conditional_rules.rules.0.field', /must be one of/],
      [{ name: '   ' }, 'name', /blank/],
    ];
    for (const [patch, field, message] of cases) {
      const r = await t.call('POST', '/api/v1/webhooks', { name: 'a', url: 'https://x.example.invalid', events: ['test.case.created'], ...patch });
      expect({ patch, status: r.status, error: r.body.error }).toEqual({ patch, status: 400, error: 'validation_error' });
      expect(r.body.details).toEqual(expect.arrayContaining([{ field, message: expect.stringMatching(message) }]));
    }
    for (const raw of ['{"name":', '[]', 'null']) {
      const r = await t.call('POST', '/api/v1/webhooks', raw);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('validation_error');
    }
    expect((await t.call('GET', '/api/v1/webhooks')).body.pagination.total).toBe(0);
  });

  it('accepts plain HTTP to loopback hosts in local mode and every spec event type plus test.completed', async () => {
    const t = svc.tenant();
    const types = [
      'test.execution.started', 'test.execution.completed', 'test.execution.passed', 'test.execution.failed', 'test.execution.timeout',
      'test.case.created', 'test.case.updated', 'test.case.deleted', 'test.plan.started', 'test.plan.completed', 'test.plan.scheduled',
      'discovery.session.started', 'discovery.session.completed', 'discovery.flow.detected', 'organization.member.added',
      'organization.member.removed', 'organization.quota.warning', 'organization.quota.exceeded', 'billing.subscription.updated',
      'billing.subscription.cancelled', 'billing.payment.succeeded', 'billing.payment.failed', 'test.completed',
    ];
    for (const url of ['http://localhost:9/x', 'http://127.0.0.1:9/x', 'http://[::1]:9/x']) {
      const r = await t.call('POST', '/api/v1/webhooks', { name: 'local', url, events: types });
      expect(r.status).toBe(201);
      expect(r.body.events).toEqual(types);
    }
  });

  it('lets only admins and owners manage webhooks, and sk_live_ keys only with the webhooks:manage scope', async () => {
    const body = { name: 'a', url: 'https://x.example.invalid', events: ['test.case.created'] };
    const member = await svc.tenant({ role: 'member' }).call('POST', '/api/v1/webhooks', body);
    expect(member.status).toBe(403);
    expect(member.body).toMatchObject({ error: 'insufficient_permissions', message: expect.stringMatching(/owner or admin/) });
    const memberList = await svc.tenant({ role: 'member' }).call('GET', '/api/v1/webhooks');
    expect(memberList.status).toBe(403);
    const scoped = await svc.tenant({ kind: 'api_key', role: 'admin', scopes: ['projects:read'] }).call('POST', '/api/v1/webhooks', body);
    expect(scoped.status).toBe(403);
    expect(scoped.body.message).toMatch(/webhooks:manage/);
    const allowed = await svc.tenant({ kind: 'api_key', role: 'admin', scopes: ['webhooks:manage'] }).call('POST', '/api/v1/webhooks', body);
    expect(allowed.status).toBe(201);
    const admin = await svc.tenant({ role: 'admin' }).call('POST', '/api/v1/webhooks', body);
    expect(admin.status).toBe(201);
  });

  it('enforces the plan limits: 3 webhooks on Starter, 10 on Growth, conditional rules on Pro only', async () => {
    const body = { name: 'a', url: 'https://x.example.invalid', events: ['test.case.created'] };
    const starter = svc.tenant({ plan: 'starter' });
    for (let i = 0; i < 3; i++) expect((await starter.call('POST', '/api/v1/webhooks', body)).status).toBe(201);
    const fourth = await starter.call('POST', '/api/v1/webhooks', body);
    expect(fourth.status).toBe(403);
    expect(fourth.body).toMatchObject({ error: 'insufficient_permissions', message: 'Webhook limit reached: the starter plan allows 3 webhooks' });
    expect((await starter.call('GET', '/api/v1/webhooks')).body.pagination.total).toBe(3);

    const growth = svc.tenant({ plan: 'growth' });
    const results = await Promise.all(Array.from({ length: 12 }, () => growth.call('POST', '/api/v1/webhooks', body)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 403).map((r) => r.body.message)).toEqual([
      'Webhook limit reached: the growth plan allows 10 webhooks',
      'Webhook limit reached: the growth plan allows 10 webhooks',
    ]);

    const rules = { rules: [{ field: 'consecutive_failures', op: 'gte', value: 3 }] };
    const noRules = await svc.tenant({ plan: 'growth' }).call('POST', '/api/v1/webhooks', { ...body, conditional_rules: rules });
    expect(noRules.status).toBe(403);
    expect(noRules.body.message).toMatch(/Conditional rules need the Pro plan/);
    const pro = await svc.tenant({ plan: 'pro' }).call('POST', '/api/v1/webhooks', { ...body, conditional_rules: rules });
    expect(pro.status).toBe(201);
    expect(pro.body.conditional_rules).toEqual(rules);
  });

  it('edits, lists, pages and deletes webhooks of the caller’s organization only', async () => {
    const t = svc.tenant();
    const other = svc.tenant();
    const a = await t.webhook('https://a.example.invalid');
    const b = await t.webhook('https://b.example.invalid');
    const patched = await t.call('PATCH', `/api/v1/webhooks/${a.id}`, { name: 'Renamed', events: ['test.case.deleted'], filters: { projects: ['p1'] }, enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: a.id, name: 'Renamed', events: ['test.case.deleted'], filters: { projects: ['p1'], priorities: [] }, enabled: false });
    expect((await t.call('PATCH', `/api/v1/webhooks/${a.id}`, {})).status).toBe(400);
    expect((await t.call('PATCH', `/api/v1/webhooks/${a.id}`, { secret: 'x'.repeat(30) })).body.details).toEqual([{ field: 'secret', message: 'is not a known field' }]);

    const page = await t.call('GET', '/api/v1/webhooks?limit=1&offset=1');
    expect(page.body).toEqual({ data: [expect.objectContaining({ id: b.id })], pagination: { limit: 1, offset: 1, total: 2 } });
    expect((await t.call('GET', '/api/v1/webhooks?limit=0')).status).toBe(400);

    for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['GET', '/deliveries'], ['POST', '/test'], ['POST', '/rotate-secret']] as const) {
      const r = await other.call(method, `/api/v1/webhooks/${a.id}${path}`, method === 'PATCH' ? { name: 'x' } : undefined);
      expect({ method, path, status: r.status, error: r.body.error }).toEqual({ method, path, status: 404, error: 'not_found' });
    }
    expect((await t.call('GET', '/api/v1/webhooks/not-a-uuid')).status).toBe(404);

    expect((await t.call('DELETE', `/api/v1/webhooks/${a.id}`)).body).toEqual({ id: a.id, deleted: true });
    expect((await t.call('GET', `/api/v1/webhooks/${a.id}`)).status).toBe(404);
    expect(await svc.database.db.selectFrom('deliveries').select('id').where('webhook_id', '=', a.id).execute()).toEqual([]);
  });

  it('rotates the secret: the new one is shown once and the old one stays valid for 24 hours', async () => {
    const t = svc.tenant();
    const hook = await t.webhook('https://a.example.invalid');
    const r = await t.call('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`);
    expect(r.status).toBe(200);
    valid(r.body, 'WebhookSecretRotated');
    expect(r.body.secret).not.toBe(hook.secret);
    expect(Date.parse(r.body.previous_secret_expires_at) - svc.clock.now().getTime()).toBe(24 * 3600 * 1000);
    const row = await svc.database.db.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
    expect(svc.secrets.open(row.secret_enc)).toBe(r.body.secret);
    expect(svc.secrets.open(row.previous_secret_enc!)).toBe(hook.secret);
    const given = await t.call('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, { secret: 'too-short' });
    expect(given.status).toBe(400);
  });
});
