import { catalogueMismatches } from '@assay/contracts';
import { mountedRoutes } from '@assay/http';
import type { AuthContext } from './context.js';
import { ROUTERS } from './routes.js';

describe('the auth routers', () => {
  it('mount exactly the entries of its catalogue (libs/contracts/src/routes/auth.ts), no more, no fewer', () => {
    // A router reads its context only when a request comes: an empty one builds it.
    const mounted = mountedRoutes(ROUTERS.map((router) => router({} as AuthContext)));
    expect(catalogueMismatches('auth', mounted)).toEqual({ unmounted: [], uncatalogued: [] });
  });
});
