import { createHmac, type KeyObject } from 'node:crypto';

// A type, not an interface: undici takes it as a record of header values.
export type SignedHeaders = {
  'content-type': string;
  'user-agent': string;
  'x-service-signature': string;
  'x-service-event': string;
  'x-service-delivery': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/**
 * The headers of one attempt: the spec's `X-Service-Signature: sha256=<hex>`
 * over the raw body with the current secret, and the Standard Webhooks
 * headers with one `v1,<base64>` signature per valid secret (two during a rotation).
 */
export function signDelivery(opts: { deliveryId: string; event: string; body: string; secrets: Array<string | KeyObject>; at: Date }): SignedHeaders {
  const [current] = opts.secrets;
  if (current === undefined) throw new Error('No secret to sign with');
  const timestamp = String(Math.floor(opts.at.getTime() / 1000));
  const signed = `${opts.deliveryId}.${timestamp}.${opts.body}`;
  return {
    'content-type': 'application/json',
    'user-agent': 'Assay-Webhooks/1.0',
    'x-service-signature': `sha256=${createHmac('sha256', current).update(opts.body).digest('hex')}`,
    'x-service-event': opts.event,
    'x-service-delivery': opts.deliveryId,
    'webhook-id': opts.deliveryId,
    'webhook-timestamp': timestamp,
    'webhook-signature': opts.secrets.map((s) => `v1,${createHmac('sha256', s).update(signed).digest('base64')}`).join(' '),
  };
}
