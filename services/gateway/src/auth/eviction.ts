import { TOPICS, isEvent } from '@assay/contracts';
import type { Bus, Subscription } from '@assay/bus';
import type { Authenticator } from './authenticator.js';

/**
 * Every gateway process hears every auth event (a broadcast subscription)
 * and drops cached answers for revoked keys, suspended or deleted
 * organizations, and organizations whose plan, quotas or members changed, so revocation takes effect everywhere well within 5 s.
 */
export function subscribeToAuthEvents(bus: Bus, authenticator: Authenticator): Promise<Subscription> {
  return bus.subscribe({
    topic: TOPICS.authEvents,
    group: 'gateway',
    broadcast: true,
    handler: async (event) => {
      if (isEvent(event, 'auth.key.revoked')) authenticator.evictKey(event.data.key_id);
      if (event.event === 'auth.organization.status_changed' || event.event === 'auth.organization.access_changed') authenticator.evictOrganization(event.organization_id);
    },
  });
}
