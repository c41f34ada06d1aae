// Docker HEALTHCHECK: GET /healthz on $PORT, or on the service's default port.
const DEFAULT_PORTS = {
  gateway: 8080,
  auth: 8081,
  'test-case': 8082,
  'execution-runner': 8083,
  'discovery-crawler': 8084,
  analysis: 8085,
  'webhook-dispatcher': 8086,
};
const port = process.env.PORT || DEFAULT_PORTS[process.env.SERVICE ?? ''] || 8080;
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(4000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
