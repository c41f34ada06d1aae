import { catalogueMismatches } from '@assay/contracts';
import { mountedRoutes } from '@assay/http';
import type { WebhookContext } from './context.js';
import { ROUTERS } from './routes.js';

describe('the webhook-dispatcher routers', () => {
  it('mount exactly the entries of its catalogue (libs/contracts/src/routes/webhook-dispatcher.ts), no more, no fewer', () => {
    // A router reads its context only when a request comes: an empty one builds it.
    const mounted = mountedRoutes(ROUTERS.map((router) => router({} as WebhookContext)));
    expect(catalogueMismatches('webhook-dispatcher', mounted)).toEqual({ unmounted: [], uncatalogued: [] });
  });
});
