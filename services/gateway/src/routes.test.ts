import { Agent } from 'undici';
import { catalogueMismatches } from '@assay/contracts';
import { mountedRoutes } from '@assay/http';
import { createSilentLogger } from '@assay/logger';
import { buildApp } from './app.js';
import type { Authenticator } from './auth/authenticator.js';

// Pages that are not API routes: the health probes, the console, the reference's assets, the trace viewer.
const PAGES = /^\/(healthz|livez|readyz|favicon\.svg|docs\/.+|trace(\/.*)?)$/;

describe('the gateway app', () => {
  it('mounts exactly the entries of its catalogue (libs/contracts/src/routes/gateway.ts) besides its pages; the rest it forwards', async () => {
    const dispatcher = new Agent();
    // Nothing is called here: the app is only built and its routes read.
    const app = buildApp({ logger: createSilentLogger(), authenticator: {} as Authenticator, dispatcher, upstreams: {}, internalTokenSecret: 'x'.repeat(32), publicBaseUrl: 'http://localhost:8080', rateLimitsEnabled: false, upstreamResponseTimeoutMs: 1000 });
    const mounted = mountedRoutes([app.router]).filter((r) => !PAGES.test(r.path));
    expect(catalogueMismatches('gateway', mounted)).toEqual({ unmounted: [], uncatalogued: [] });
    await dispatcher.close();
  });
});
