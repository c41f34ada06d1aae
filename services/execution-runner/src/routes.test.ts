import { catalogueMismatches } from '@assay/contracts';
import { mountedRoutes } from '@assay/http';
import type { ExecutionContext } from './context.js';
import { ROUTERS } from './routes.js';

describe('the execution-runner routers', () => {
  it('mount exactly the entries of its catalogue (libs/contracts/src/routes/execution-runner.ts), no more, no fewer', () => {
    // A router reads its context only when a request comes: an empty one builds it.
    const mounted = mountedRoutes(ROUTERS.map((router) => router({} as ExecutionContext)));
    expect(catalogueMismatches('execution-runner', mounted)).toEqual({ unmounted: [], uncatalogued: [] });
  });
});
