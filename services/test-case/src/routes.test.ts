import { catalogueMismatches } from '@assay/contracts';
import { mountedRoutes } from '@assay/http';
import type { TestCaseContext } from './context.js';
import { ROUTERS } from './routes.js';

describe('the test-case routers', () => {
  it('mount exactly the entries of its catalogue (libs/contracts/src/routes/test-case.ts), no more, no fewer', () => {
    // A router reads its context only when a request comes: an empty one builds it.
    const mounted = mountedRoutes(ROUTERS.map((router) => router({} as TestCaseContext)));
    expect(catalogueMismatches('test-case', mounted)).toEqual({ unmounted: [], uncatalogued: [] });
  });
});
