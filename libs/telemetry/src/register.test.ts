import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { serviceNameOf } from './sdk.js';
import { SERVICE_NODE_ARGS, tracingRequested } from './index.js';

const run = promisify(execFile);

function repoRoot(): string {
  let dir = process.cwd();
  while (!existsSync(path.join(dir, 'pnpm-workspace.yaml'))) dir = path.dirname(dir);
  return dir;
}

// What a process started the way services are (tsx, then the preload) has loaded: every CommonJS
// module in the cache (the SDK and the instrumentations are CommonJS) and whether an OpenTelemetry
// API global was registered.
const PROBE = `
const cache = Object.keys(require('module')._cache);
console.log(JSON.stringify({
  otel: cache.filter((f) => f.includes('@opentelemetry') || f.includes('import-in-the-middle')).map((f) => f.replace(/.*node_modules\\//, '')),
  apiGlobal: globalThis[Symbol.for('opentelemetry.js.api.1')] !== undefined,
}));`;

async function probe(env: Record<string, string>): Promise<{ otel: string[]; apiGlobal: boolean }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const { stdout } = await run(process.execPath, [...SERVICE_NODE_ARGS, '-e', PROBE], { cwd: repoRoot(), env: { ...clean, ...env }, timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { otel: string[]; apiGlobal: boolean };
}

describe('the tracing preload', () => {
  it('loads no OpenTelemetry module and registers nothing when OTEL_EXPORTER_OTLP_ENDPOINT is unset', async () => {
    const off = await probe({});
    expect(off).toEqual({ otel: [], apiGlobal: false });
  }, 60_000);

  it('stays off when the SDK is disabled, even with an endpoint', async () => {
    const disabled = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' });
    expect(disabled).toEqual({ otel: [], apiGlobal: false });
  }, 60_000);

  // The control: the same probe sees the SDK and every instrumentation once an endpoint is set
  // (port 9 discards: nothing is exported in this test, the process exits first).
  it('loads the SDK and the http, express, pg, undici and kafkajs instrumentations when an endpoint is set', async () => {
    const on = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(on.apiGlobal).toBe(true);
    for (const name of ['sdk-node', 'instrumentation-http', 'instrumentation-express', 'instrumentation-pg', 'instrumentation-undici', 'instrumentation-kafkajs']) {
      expect(on.otel.some((f) => f.startsWith(`@opentelemetry/${name}/`))).toBe(true);
    }
  }, 60_000);
});

describe('tracingRequested', () => {
  it('is on with a general or a traces endpoint, off without one or when the SDK is disabled', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
  });
});

describe('serviceNameOf', () => {
  it('names a service after its directory unless OTEL_SERVICE_NAME says otherwise', () => {
    expect(serviceNameOf({}, path.join('/app', 'services', 'webhook-dispatcher', 'src', 'main.ts'))).toBe('assay-webhook-dispatcher');
    expect(serviceNameOf({ OTEL_SERVICE_NAME: 'edge' }, path.join('/app', 'services', 'gateway', 'src', 'main.ts'))).toBe('edge');
    expect(serviceNameOf({}, undefined)).toBe('assay');
  });
});
