import { catalogueMismatches } from '@assay/contracts';
import { mountedRoutes } from '@assay/http';
import type { AnalysisContext } from './context.js';
import { ROUTERS } from './routes.js';

describe('the analysis routers', () => {
  it('mount exactly the entries of its catalogue (libs/contracts/src/routes/analysis.ts), no more, no fewer', () => {
    // A router reads its context only when a request comes: an empty one builds it.
    const mounted = mountedRoutes(ROUTERS.map((router) => router({} as AnalysisContext)));
    expect(catalogueMismatches('analysis', mounted)).toEqual({ unmounted: [], uncatalogued: [] });
  });
});
