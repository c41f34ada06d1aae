import type { UpstreamName } from '../config.js';

export interface ResolvedRoute {
  /** `gateway`: served by the gateway itself (the MCP endpoint), after authentication and rate limits. */
  service: UpstreamName | 'gateway';
  /** Path (and query) the service sees: P0 and P2 aliases are rewritten to their P1 form. */
  upstreamPath: string;
  /** Reachable without a credential. */
  public: boolean;
}

interface Rule {
  pattern: RegExp;
  service: UpstreamName | 'gateway';
  rewrite?: (path: string) => string;
}

const toV1 = (prefix: RegExp) => (path: string) => path.replace(prefix, '/api/v1/');

// First match wins: the failure-analysis rules come before the executions rules (DESIGN.md, path map),
// and a test case's flakiness (the analysis service's) before the test-case rules.
const RULES: Rule[] = [
  { pattern: /^\/api\/v1\/executions\/[^/]+\/failure-analysis(\/[^/]+\/(apply|reject))?\/?$/, service: 'analysis' },
  { pattern: /^\/api\/executions\/[^/]+\/failure-analysis(\/[^/]+\/(apply|reject))?\/?$/, service: 'analysis', rewrite: toV1(/^\/api\//) },
  { pattern: /^\/api\/v1\/issues(\/|$)/, service: 'analysis' },
  { pattern: /^\/api\/v1\/test-cases\/[^/]+\/flakiness\/?$/, service: 'analysis' },
  // Schedules of test plans live with the executions they start (execution-runner).
  { pattern: /^\/api\/v1\/test-plans\/[^/]+\/schedules(\/|$)/, service: 'execution-runner' },
  { pattern: /^\/api\/test-plans\/[^/]+\/schedules(\/|$)/, service: 'execution-runner', rewrite: toV1(/^\/api\//) },
  { pattern: /^\/api\/v1\/(test-cases|test-plans|projects)(\/|$)/, service: 'test-case' },
  { pattern: /^\/api\/v1\/(executions|artifacts|test-runs|recordings)(\/|$)/, service: 'execution-runner' },
  { pattern: /^\/api\/v1\/reports(\/|$)/, service: 'analysis' },
  { pattern: /^\/api\/v1\/discovery(\/|$)/, service: 'discovery-crawler' },
  { pattern: /^\/api\/v1\/webhooks(\/|$)/, service: 'webhook-dispatcher' },
  { pattern: /^\/api\/(service-keys|api-keys|auth|organizations|billing)(\/|$)/, service: 'auth' },
  { pattern: /^\/api\/(projects|test-cases|test-plans)(\/|$)/, service: 'test-case', rewrite: toV1(/^\/api\//) },
  { pattern: /^\/api\/executions(\/|$)/, service: 'execution-runner', rewrite: toV1(/^\/api\//) },
  { pattern: /^\/v1\/projects(\/|$)/, service: 'test-case', rewrite: toV1(/^\/v1\//) },
  { pattern: /^\/mcp\/?$/, service: 'gateway' },
];

const PUBLIC: Array<[string, RegExp]> = [
  ['POST', /^\/api\/auth\/login\/?$/],
  // The invitation token is the credential.
  ['POST', /^\/api\/auth\/accept-invitation\/?$/],
  // The refresh cookie is the credential (forwarded to this route only).
  ['POST', /^\/api\/auth\/refresh\/?$/],
  // Stripe signs its calls; auth verifies the signature.
  ['POST', /^\/api\/billing\/stripe\/webhook\/?$/],
];

/** The service behind a public path, or null when no service serves it (404). */
export function resolveRoute(method: string, path: string, search = ''): ResolvedRoute | null {
  // Reject traversal and encoded slashes outright rather than normalise them differently from the services.
  if (/(^|\/)(\.|%2e){1,2}(\/|$)|%2f|%5c|\\/i.test(path)) return null;
  const rule = RULES.find((r) => r.pattern.test(path));
  if (!rule) return null;
  return {
    service: rule.service,
    upstreamPath: (rule.rewrite ? rule.rewrite(path) : path) + search,
    public: PUBLIC.some(([m, re]) => m === method && re.test(path)),
  };
}
