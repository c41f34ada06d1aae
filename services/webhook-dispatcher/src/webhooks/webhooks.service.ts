import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import { contractValidator, type FieldError } from '@assay/contracts';
import { retryOnConflict, withTransaction } from '@assay/db';
import { conflict, forbidden, isUuid, iso, notFound, validationError } from '@assay/http';
import type { Plan } from '@assay/principal';
import type { WebhookContext } from '../context.js';
import type { ConditionalRules, DeliveryRow, DeliveryStatus, WebhookDatabase, WebhookRow } from '../db/database.js';
import { findDelivery, insertDeliveries, listDeliveries, requeueDelivery } from '../deliveries/deliveries.repository.js';
import { toDeliveryBody } from '../deliveries/deliveries.service.js';
import { newDelivery } from '../deliveries/envelope.js';
import { validateRules } from './matching.js';
import { PLAN_LIMITS } from '../shared/plans.js';
import { generateSecret, standardWebhooksSecret } from '../shared/secrets.js';
import { deleteWebhookRow, findPlan, findWebhook, insertWebhook, listWebhooks, lockAndCountWebhooks, rememberPlan, updateWebhookRow } from './webhooks.repository.js';

type Db = Kysely<WebhookDatabase>;

/** How long the secret before a rotation keeps signing. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export function toWebhookBody(row: WebhookRow, now: Date) {
  const overlap = row.previous_secret_expires_at && row.previous_secret_expires_at > now ? row.previous_secret_expires_at : null;
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: row.events,
    filters: { projects: row.filter_projects, priorities: row.filter_priorities },
    conditional_rules: row.conditional_rules,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    disabled_at: iso(row.disabled_at),
    previous_secret_expires_at: iso(overlap),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** HTTPS, or plain HTTP to a loopback host where the deployment allows it. */
function schemeErrors(url: URL, allowLocalHttp: boolean): FieldError[] {
  if (url.protocol === 'https:') return [];
  if (url.protocol === 'http:' && allowLocalHttp && isLoopback(url.hostname)) return [];
  if (url.protocol === 'http:') {
    return [{ field: 'url', message: allowLocalHttp ? 'must use HTTPS (plain HTTP only to localhost)' : 'must use HTTPS' }];
  }
  return [{ field: 'url', message: 'must be an https:// URL' }];
}

/**
 * The scheme rule, then the egress policy on the host: an IP literal in any
 * spelling, a metadata name, or a name resolving to a refused address is a
 * 400. A name that does not resolve now is accepted: it is checked again on
 * every connection, and deliveries to it fail (and retry) until it does.
 */
async function urlErrors(raw: string, ctx: WebhookContext): Promise<FieldError[]> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [{ field: 'url', message: 'must be an absolute URL' }];
  }
  const scheme = schemeErrors(url, ctx.allowLocalHttp);
  if (scheme.length) return scheme;
  const verdict = await ctx.egress.checkHost(url.hostname);
  if (verdict.allowed || verdict.category === 'unresolvable') return [];
  return [{ field: 'url', message: `blocked by the egress policy (${verdict.reason})` }];
}

/**
 * Validates a create or update body: the contract schema, the URL rule and
 * the rules' operators and values.
 * @throws AppError 400 listing every problem.
 */
async function assertValidBody(schema: 'WebhookCreateRequest' | 'WebhookUpdateRequest', body: unknown, ctx: WebhookContext): Promise<Record<string, any>> {
  if (body === undefined || body === null || typeof body !== 'object') throw validationError([{ field: 'body', message: 'a JSON object is required' }]);
  const errors = contractValidator().validate(schema, body);
  const b = body as Record<string, unknown>;
  if (typeof b.url === 'string' && !errors.some((e) => e.field === 'url')) errors.push(...(await urlErrors(b.url, ctx)));
  if (b.conditional_rules && !errors.some((e) => e.field.startsWith('conditional_rules'))) errors.push(...validateRules(b.conditional_rules as ConditionalRules));
  if (typeof b.name === 'string' && b.name.trim() === '') errors.push({ field: 'name', message: 'must not be blank' });
  if (errors.length) throw validationError(errors);
  return b;
}

function assertRulesAllowed(rules: unknown, plan: Plan): void {
  if (rules && !PLAN_LIMITS[plan].conditionalRules) {
    throw forbidden(`Conditional rules need the Pro plan (limit: conditional webhooks on the ${plan} plan: no)`);
  }
}

async function queueTestEvent(db: Db, webhook: WebhookRow, event: string, plan: Plan, now: Date): Promise<DeliveryRow> {
  const [row] = await insertDeliveries(db, [
    newDelivery(
      webhook,
      {
        event,
        eventId: null,
        timestamp: now.toISOString(),
        test: true,
        data: { test: true, message: `A test event from Assay for webhook "${webhook.name}"`, webhook: { id: webhook.id, name: webhook.name, url: webhook.url } },
      },
      plan,
      now,
    ),
  ]);
  return row!;
}

/**
 * Registers a webhook under the plan's limits and queues its test event.
 * @throws AppError 400 for bad input, 403 naming the limit that was reached.
 */
export async function createWebhook(ctx: WebhookContext, orgId: string, plan: Plan, input: unknown) {
  const body = await assertValidBody('WebhookCreateRequest', input, ctx);
  assertRulesAllowed(body.conditional_rules, plan);
  const secret: string = body.secret ?? generateSecret();
  const now = ctx.clock.now();
  const result = await withTransaction(ctx.db, async (trx) => {
    const count = await lockAndCountWebhooks(trx, orgId);
    const limit = PLAN_LIMITS[plan].webhooks;
    if (count >= limit) throw forbidden(`Webhook limit reached: the ${plan} plan allows ${limit} webhooks`);
    const webhook = await insertWebhook(trx, {
      org_id: orgId,
      name: body.name.trim(),
      url: body.url,
      events: body.events,
      filter_projects: body.filters?.projects ?? [],
      filter_priorities: body.filters?.priorities ?? [],
      conditional_rules: JSON.stringify(body.conditional_rules ?? null),
      enabled: body.enabled ?? true,
      secret_enc: ctx.secrets.seal(secret),
    });
    const test = await queueTestEvent(trx, webhook, webhook.events[0]!, plan, now);
    return { webhook, test };
  });
  ctx.deliveriesDue();
  return { ...toWebhookBody(result.webhook, now), secret, standard_webhooks_secret: standardWebhooksSecret(secret), test_delivery_id: result.test.id };
}

export async function getWebhook(db: Db, orgId: string, id: string): Promise<WebhookRow> {
  const row = isUuid(id) ? await findWebhook(db, orgId, id) : undefined;
  if (!row) throw notFound('Webhook');
  return row;
}

/** One page of the organization's webhooks, as the API shows them. */
export async function listWebhookPage(ctx: WebhookContext, orgId: string, limit: number, offset: number) {
  const { rows, total } = await listWebhooks(ctx.db, orgId, limit, offset);
  const now = ctx.clock.now();
  return { data: rows.map((r) => toWebhookBody(r, now)), pagination: { limit, offset, total } };
}

/** Keeps the caller's plan for the delivery-time limits (the last plan seen per organization). */
export async function rememberCallerPlan(db: Db, orgId: string, plan: Plan): Promise<void> {
  await rememberPlan(db, orgId, plan);
}

/** Applies any subset of fields; `enabled: true` clears the reason of an automatic disable. */
export async function updateWebhook(ctx: WebhookContext, orgId: string, plan: Plan, id: string, input: unknown) {
  const body = await assertValidBody('WebhookUpdateRequest', input, ctx);
  if (body.conditional_rules) assertRulesAllowed(body.conditional_rules, plan);
  const row = await withTransaction(ctx.db, async (trx) => {
    const current = isUuid(id) ? await findWebhook(trx, orgId, id, true) : undefined;
    if (!current) throw notFound('Webhook');
    const patch: Record<string, unknown> = {};
    if (body.name !== undefined) patch.name = body.name.trim();
    if (body.url !== undefined) patch.url = body.url;
    if (body.events !== undefined) patch.events = body.events;
    if (body.filters !== undefined) {
      patch.filter_projects = body.filters.projects ?? [];
      patch.filter_priorities = body.filters.priorities ?? [];
    }
    if (body.conditional_rules !== undefined) patch.conditional_rules = JSON.stringify(body.conditional_rules);
    if (body.enabled !== undefined) {
      patch.enabled = body.enabled;
      if (body.enabled) Object.assign(patch, { disabled_reason: null, disabled_at: null });
    }
    return updateWebhookRow(trx, orgId, id, patch);
  });
  // Deliveries that waited while it was disabled are due again.
  if (row.enabled) ctx.deliveriesDue();
  return toWebhookBody(row, ctx.clock.now());
}

/**
 * Deletes a webhook with its deliveries. A delivery batch holding some of its
 * rows can deadlock with the cascade; Postgres then aborts one side, and a
 * delete it aborted runs again.
 */
export async function deleteWebhook(db: Db, orgId: string, id: string) {
  if (!isUuid(id) || !(await retryOnConflict(() => deleteWebhookRow(db, orgId, id)))) throw notFound('Webhook');
  return { id, deleted: true };
}

/** A new secret (given or generated); the old one keeps signing for 24 h. */
export async function rotateSecret(ctx: WebhookContext, orgId: string, id: string, body: unknown) {
  const b = body ?? {};
  const errors = contractValidator().validate('WebhookRotateRequest', b);
  if (errors.length) throw validationError(errors);
  const secret = (b as { secret?: string }).secret ?? generateSecret();
  const now = ctx.clock.now();
  const expires = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  await withTransaction(ctx.db, async (trx) => {
    const current = isUuid(id) ? await findWebhook(trx, orgId, id, true) : undefined;
    if (!current) throw notFound('Webhook');
    await updateWebhookRow(trx, orgId, id, { secret_enc: ctx.secrets.seal(secret), previous_secret_enc: current.secret_enc, previous_secret_expires_at: expires });
  });
  return { id, secret, standard_webhooks_secret: standardWebhooksSecret(secret), previous_secret_expires_at: expires.toISOString() };
}

/**
 * Queues a test event of the chosen type (default: the first subscribed one).
 * @throws AppError 409 when the webhook is disabled.
 */
export async function sendTestEvent(ctx: WebhookContext, orgId: string, id: string, body: unknown): Promise<DeliveryRow> {
  const b = body ?? {};
  const errors = contractValidator().validate('WebhookTestRequest', b);
  if (errors.length) throw validationError(errors);
  const webhook = await getWebhook(ctx.db, orgId, id);
  if (!webhook.enabled) throw conflict('The webhook is disabled: enable it first');
  const plan = await findPlan(ctx.db, orgId);
  const row = await queueTestEvent(ctx.db, webhook, (b as { event?: string }).event ?? webhook.events[0]!, plan, ctx.clock.now());
  ctx.deliveriesDue();
  return row;
}

/** The delivery log of one webhook, newest first. @throws AppError 404 for an unknown webhook. */
export async function listWebhookDeliveries(db: Db, orgId: string, webhookId: string, f: { status?: DeliveryStatus | undefined; event?: string | undefined; limit: number; offset: number }) {
  await getWebhook(db, orgId, webhookId);
  const { rows, total } = await listDeliveries(db, orgId, webhookId, f);
  return { data: rows.map(toDeliveryBody), pagination: { limit: f.limit, offset: f.offset, total } };
}

/**
 * Sends a finished delivery again at once (the same id and body).
 * @throws AppError 404 for unknown ids, 409 while it is still pending or the webhook is disabled.
 */
export async function resendDelivery(ctx: WebhookContext, orgId: string, webhookId: string, id: string) {
  const row = await withTransaction(ctx.db, async (trx) => {
    const webhook = await getWebhook(trx, orgId, webhookId);
    const current = isUuid(id) ? await findDelivery(trx, orgId, webhookId, id, true) : undefined;
    if (!current) throw notFound('Delivery');
    if (current.status === 'pending') throw conflict('The delivery is still pending: it goes out on its own');
    if (!webhook.enabled) throw conflict('The webhook is disabled: enable it first');
    return requeueDelivery(trx, id, ctx.clock.now());
  });
  ctx.deliveriesDue();
  return toDeliveryBody(row);
}
