import { catalogueMismatches } from '@assay/contracts';
import { mountedRoutes } from '@assay/http';
import type { DiscoveryContext } from './context.js';
import { ROUTERS } from './routes.js';

describe('the discovery-crawler routers', () => {
  it('mount exactly the entries of its catalogue (libs/contracts/src/routes/discovery-crawler.ts), no more, no fewer', () => {
    // A router reads its context only when a request comes: an empty one builds it.
    const mounted = mountedRoutes(ROUTERS.map((router) => router({} as DiscoveryContext)));
    expect(catalogueMismatches('discovery-crawler', mounted)).toEqual({ unmounted: [], uncatalogued: [] });
  });
});
