import nodemailer, { type Transporter } from 'nodemailer';
import { InternalClient } from '@assay/internal-client';
import type { Logger } from '@assay/logger';

/** What the administrators are told when the dispatcher disables a webhook. */
export interface DisabledWebhook {
  orgId: string;
  webhookId: string;
  name: string;
  url: string;
  reason: string;
}

export interface MailerOptions {
  /** smtp(s)://user:password@host:port; the password is never logged. */
  smtpUrl: string;
  from: string;
  /** The auth service: it names the organization's owner and admins. */
  authUrl: string;
  internalTokenSecret: string;
  logger: Logger;
}

/**
 * E-mails the owner and the admins of an organization (their addresses come
 * from auth's internal route) when one of its webhooks is disabled. Failures
 * are logged, never thrown: the notification row stays the record.
 */
export class AdminMailer {
  private readonly transport: Transporter;
  private readonly password: string;
  private readonly auth: InternalClient;

  constructor(private readonly o: MailerOptions) {
    this.password = decodeURIComponent(new URL(o.smtpUrl).password);
    this.auth = new InternalClient({ caller: 'webhook-dispatcher', urls: { auth: o.authUrl }, internalTokenSecret: o.internalTokenSecret });
    this.transport = nodemailer.createTransport(o.smtpUrl);
  }

  /** The administrators' addresses (owner first). */
  async administrators(orgId: string): Promise<string[]> {
    const { data } = await this.auth.expect('administrators', { params: { org_id: orgId } });
    return [...new Set(data.map((a) => a.email))];
  }

  /** Sends the notice; resolves with the recipients (none when the organization has no administrator). */
  async webhookDisabled(w: DisabledWebhook): Promise<string[]> {
    try {
      const to = await this.administrators(w.orgId);
      if (to.length === 0) return [];
      await this.transport.sendMail({
        from: this.o.from,
        to,
        subject: `[Assay] Webhook "${w.name}" was disabled`,
        text: [
          `The webhook "${w.name}" (${w.url}) of your organization was disabled by Assay.`,
          '',
          `Reason: ${w.reason}`,
          '',
          'Deliveries for it wait while it is disabled. Fix the endpoint, then enable the webhook again',
          `(PATCH /api/v1/webhooks/${w.webhookId} with {"enabled": true}); the waiting deliveries go out then.`,
          '',
          `Webhook id: ${w.webhookId}`,
        ].join('\n'),
      });
      this.o.logger.info({ webhook: w.webhookId, org: w.orgId, recipients: to.length }, 'webhook disabled: administrators e-mailed');
      return to;
    } catch (err) {
      this.o.logger.warn({ webhook: w.webhookId, org: w.orgId, error: this.redact(err) }, 'webhook disabled: e-mail to the administrators failed');
      return [];
    }
  }

  close(): void {
    this.transport.close();
  }

  /** The error's code and message with the SMTP password cut out, whatever the library put in it. */
  private redact(err: unknown): string {
    const e = err as { code?: string; message?: string };
    const text = `${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`;
    return this.password ? text.split(this.password).join('***').split(encodeURIComponent(this.password)).join('***') : text;
  }
}
