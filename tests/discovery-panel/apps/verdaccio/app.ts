// Verdaccio 6.8 (npm `verdaccio`, React with Material UI): the registry the
// crawler was developed on (tests/fixtures/verdaccio), with its four packages
// and one user; uplinks off.
import { startVerdaccio as startRegistry } from '../../../fixtures/verdaccio/server.js';
import type { RunningApp } from '../../support.js';

export async function startVerdaccio(): Promise<RunningApp> {
  const registry = await startRegistry();
  return { url: registry.url, close: registry.close };
}
