import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import type { EventEnvelope } from '@assay/bus';
import type { Logger } from '@assay/logger';
import { TEST_INTERNAL_SECRET } from '@assay/testing';
import { startAuth, type AuthHarness } from '../../auth/test/harness.js';
import { insertMembership, insertUser } from '../../auth/src/organizations/organizations.repository.js';
import { loadConfig } from '../src/config.js';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import { fanOut } from '../src/dispatch/intake.js';
import { AdminMailer } from '../src/notify/mailer.js';
import { spawnScript, startReceiver, startWebhookService, TEST_EGRESS, type Receiver, type WebhookHarness } from './harness.js';

// The administrators' e-mail when a webhook is disabled: the real auth service
// names them, a real SMTP server process (smtp-server) receives the mail.
const PASSWORD = `smtp-pass-${randomUUID()}`;

interface Mail {
  from: string;
  to: string[];
  raw: string;
}

let svc: WebhookHarness;
let auth: AuthHarness;
let receiver: Receiver;
let smtp: { proc: ChildProcess; port: number; mails: Mail[]; next(): Promise<Mail> };
let lines: string[];

/** A logger that keeps every line as text, to check what was (not) logged. */
function capturingLogger(): Logger {
  const write =
    (level: string) =>
    (...args: unknown[]) =>
      void lines.push(`${level} ${args.map((a) => (a instanceof Error ? `${a.message}` : JSON.stringify(a))).join(' ')}`);
  const logger = { info: write('info'), warn: write('warn'), error: write('error'), debug: write('debug'), trace: write('trace'), fatal: write('fatal'), child: () => logger };
  return logger as unknown as Logger;
}

async function startSmtp(): Promise<typeof smtp> {
  const { proc, info } = await spawnScript<{ port: number }>(path.join(__dirname, 'smtp-receiver.ts'), { SMTP_TEST_PASSWORD: PASSWORD });
  const mails: Mail[] = [];
  const waiting: Array<(m: Mail) => void> = [];
  let buffer = '';
  proc.stdout!.on('data', (c: Buffer) => {
    buffer += c.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const parsed = JSON.parse(line) as Partial<Mail>;
      if (!parsed.raw) continue;
      mails.push(parsed as Mail);
      waiting.shift()?.(parsed as Mail);
    }
  });
  let taken = 0;
  return {
    proc,
    port: info.port,
    mails,
    next: () => (taken < mails.length ? Promise.resolve(mails[taken++]!) : new Promise<Mail>((resolve) => waiting.push((m) => (taken++, resolve(m))))),
  };
}

/** Headers unfolded and the quoted-printable text body decoded: what a mail reader shows. */
function readMail(raw: string): { subject: string; text: string } {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const encoded = /^Subject: (.*)$/im.exec(head.replace(/\r?\n[ \t]+/g, ' '))?.[1] ?? '';
  // RFC 2047 encoded words (Q encoding); the space between two of them is not text.
  const subject = encoded
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_, q: string) => Buffer.from(q.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'));
  const body = rest.join('\n\n');
  const qp = /quoted-printable/i.test(head);
  const text = qp ? body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))) : body;
  return { subject, text: text.replace(/\r\n/g, '\n') };
}

beforeAll(async () => {
  [svc, auth, receiver, smtp] = await Promise.all([startWebhookService(), startAuth(), startReceiver(), startSmtp()]);
});
beforeEach(() => {
  lines = [];
});
afterAll(async () => {
  smtp?.proc.kill('SIGTERM');
  await receiver?.close();
  await auth?.close();
  await svc?.close();
});

function dispatcherWith(smtpUrl: string): Dispatcher {
  const logger = capturingLogger();
  const mailer = new AdminMailer({ smtpUrl, from: 'Assay <alerts@assay.test>', authUrl: auth.server.url, internalTokenSecret: TEST_INTERNAL_SECRET, logger });
  return new Dispatcher({ db: svc.database.db, secrets: svc.secrets, logger, clock: svc.clock, egress: TEST_EGRESS, onWebhookDisabled: (w) => mailer.webhookDisabled(w) });
}

/** A webhook whose creation test event is already out of the way, so the event below is what fails. */
async function hook(t: ReturnType<WebhookHarness['tenant']>, url: string, name: string) {
  const h = await t.webhook(url, { name });
  await svc.forgetDeliveries(h.id);
  return h;
}

const caseCreated = (orgId: string): EventEnvelope => ({
  id: randomUUID(),
  event: 'test.case.created',
  timestamp: svc.clock.now().toISOString(),
  organization_id: orgId,
  project_id: 'p-1',
  data: { test_case: { id: randomUUID(), project_id: 'p-1', name: 'Login', status: 'active', priority: 'high', steps: [] }, source: 'api' },
});

describe('e-mail when a webhook is disabled', () => {
  it("e-mails the organization's owner and admins, not its members, naming the webhook and the reason", async () => {
    const org = await auth.newOrganization('pro');
    const admin = await insertUser(auth.database.db, { email: `admin-${org.orgId}@example.test`, name: 'Admin', password_hash: 'x' });
    await insertMembership(auth.database.db, org.orgId, admin.id, 'admin');
    const member = await insertUser(auth.database.db, { email: `member-${org.orgId}@example.test`, name: 'Member', password_hash: 'x' });
    await insertMembership(auth.database.db, org.orgId, member.id, 'member');
    const t = svc.tenant({ orgId: org.orgId, plan: 'pro' });
    const h = await hook(t, `${receiver.url}/status/410/${t.orgId}`, 'Orders to CRM');
    await fanOut(svc.database.db, caseCreated(t.orgId), svc.clock);

    const dispatcher = dispatcherWith(`smtp://assay:${encodeURIComponent(PASSWORD)}@127.0.0.1:${smtp.port}`);
    await dispatcher.drain();
    const mail = await smtp.next();
    await dispatcher.stop();

    expect(mail.from).toBe('alerts@assay.test');
    expect(mail.to.sort()).toEqual([org.email, `admin-${org.orgId}@example.test`].sort());
    const { subject, text } = readMail(mail.raw);
    expect(subject).toBe('[Assay] Webhook "Orders to CRM" was disabled');
    const webhook = (await t.call('GET', `/api/v1/webhooks/${h.id}`)).body;
    expect(webhook.enabled).toBe(false);
    expect(text).toContain(`The webhook "Orders to CRM" (${receiver.url}/status/410/${t.orgId}) of your organization was disabled by Assay.`);
    expect(text).toContain(`Reason: ${webhook.disabled_reason}`);
    expect(webhook.disabled_reason).toMatch(/410 Gone/);
    expect(text).toContain(`Webhook id: ${h.id}`);
    // The notification row is still written; nothing logged holds the SMTP password.
    const notes = await svc.database.db.selectFrom('notifications').selectAll().where('webhook_id', '=', h.id).execute();
    expect(notes).toHaveLength(1);
    expect(lines.some((l) => l.includes('administrators e-mailed'))).toBe(true);
    expect(lines.join('\n')).not.toContain(PASSWORD);
  });

  it('logs a refused SMTP login without the password, and the webhook stays disabled with its notification', async () => {
    const org = await auth.newOrganization('pro');
    const t = svc.tenant({ orgId: org.orgId, plan: 'pro' });
    const h = await hook(t, `${receiver.url}/status/410/${t.orgId}`, 'Wrong password');
    await fanOut(svc.database.db, caseCreated(t.orgId), svc.clock);
    const wrong = `wrong-${randomUUID()}`;
    const before = smtp.mails.length;
    const dispatcher = dispatcherWith(`smtp://assay:${wrong}@127.0.0.1:${smtp.port}`);
    await dispatcher.drain();
    await dispatcher.stop(); // waits for the notice under way
    expect(smtp.mails.length).toBe(before);
    const failed = lines.find((l) => l.includes('e-mail to the administrators failed'));
    expect(failed).toMatch(/EAUTH/);
    expect(lines.join('\n')).not.toContain(wrong);
    expect((await t.call('GET', `/api/v1/webhooks/${h.id}`)).body.enabled).toBe(false);
    expect(await svc.database.db.selectFrom('notifications').select('kind').where('webhook_id', '=', h.id).execute()).toEqual([{ kind: 'webhook.disabled' }]);
  });
});

describe('SMTP configuration', () => {
  const base = { DATABASE_URL: 'postgres://localhost/x', INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, WEBHOOK_SECRET_KEY: 'k'.repeat(32) };

  it('is optional, and needs AUTH_URL when set; a bad SMTP_URL is named without its value', () => {
    expect(loadConfig(base).smtp).toBeUndefined();
    expect(loadConfig({ ...base, SMTP_URL: 'smtps://u:p@mail.example.invalid:465', SMTP_FROM: 'Ops <ops@example.test>', AUTH_URL: 'http://auth:8081' }).smtp).toEqual({
      url: 'smtps://u:p@mail.example.invalid:465',
      from: 'Ops <ops@example.test>',
      authUrl: 'http://auth:8081',
    });
    expect(() => loadConfig({ ...base, SMTP_URL: 'smtp://u:p@mail.example.invalid' })).toThrow(/SMTP_URL needs AUTH_URL/);
    let message = '';
    try {
      loadConfig({ ...base, SMTP_URL: 'http://user:s3cret-value@mail', AUTH_URL: 'http://auth:8081' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/SMTP_URL must be smtp:/);
    expect(message).not.toContain('s3cret-value');
  });
});
