import { benchDiscovery, benchDiscoverySpa } from './discovery.bench.js';
import { benchExecutions } from './executions.bench.js';
import { benchRelocation } from './relocation.bench.js';
import { benchWebhooks } from './webhooks.bench.js';

/**
 * `make bench [BENCH=name]`: each benchmark runs Assay and a baseline tool on
 * the same machine in the same process and prints both times and the ratio.
 */
const SUITES: Record<string, () => Promise<void>> = { executions: benchExecutions, discovery: benchDiscovery, 'discovery-spa': benchDiscoverySpa, webhooks: benchWebhooks, relocation: benchRelocation };

const wanted = process.argv.slice(2).filter(Boolean);
const names = wanted.length ? wanted : Object.keys(SUITES);
for (const name of names) {
  const suite = SUITES[name];
  if (!suite) {
    console.error(`Unknown benchmark "${name}"; known: ${Object.keys(SUITES).join(', ')}`);
    process.exit(2);
  }
  await suite();
}
process.exit(0);
