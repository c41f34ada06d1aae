import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@assay/contracts/catalogues';

/**
 * The event types a webhook can subscribe to (the contracts' WEBHOOK_EVENT_TYPES),
 * grouped by their first word (test, discovery, organization, billing, report)
 * in the catalogue's order: a type added there shows up in the webhook form.
 */
export const EVENT_GROUPS: ReadonlyArray<[string, WebhookEventType[]]> = (() => {
  const groups = new Map<string, WebhookEventType[]>();
  for (const ev of WEBHOOK_EVENT_TYPES) {
    const group = ev.split('.')[0]!;
    groups.set(group, [...(groups.get(group) ?? []), ev]);
  }
  return [...groups];
})();
