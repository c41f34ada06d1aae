import { idParam, routesOf, type InternalRouteContract } from './route.js';

const dc = routesOf('discovery-crawler', 'Discovery');
const id = idParam('session_id');

/** The discovery-crawler's routes: sessions, their progress, results and stream, test-case generation. */
export const DISCOVERY_CRAWLER_ROUTES = [
  dc({
    method: 'POST',
    path: '/api/v1/discovery/start',
    scope: 'discovery:write',
    quota: { quotas: ['discovery_pages'], what: 'discovery sessions' },
    summary: 'Start crawling a target application',
    description:
      'Crawls the origin of `target_url` in Chromium. Bounds: max_pages 1–1000, max_depth 0–20, request_delay_ms 0–60000 (default 500). Private and loopback targets are refused unless the deployment allows them.',
    body: 'DiscoveryStartRequest',
    response: { status: 201, schema: 'DiscoveryStarted' },
    errors: [400, 404],
  }),
  dc({
    method: 'GET',
    path: '/api/v1/discovery',
    scope: 'discovery:read',
    summary: 'List the organization’s discovery sessions, newest first',
    description: 'Optionally of one project (an unknown project, or another organization’s, answers 404) and in one status.',
    params: [
      { name: 'project_id', in: 'query', schema: { type: 'string' } },
      { name: 'status', in: 'query', schema: { type: 'string', enum: ['running', 'paused', 'cancelled', 'completed', 'failed'] } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
    ],
    response: { status: 200, schema: 'DiscoverySessionList' },
    errors: [400, 404],
  }),
  dc({ method: 'GET', path: '/api/v1/discovery/{session_id}/progress', scope: 'discovery:read', summary: 'Progress of a discovery session', params: [id], response: { status: 200, schema: 'DiscoveryProgress' }, errors: [404] }),
  dc({ method: 'GET', path: '/api/v1/discovery/{session_id}/results', scope: 'discovery:read', summary: 'Pages, flows, UI patterns and API endpoints found so far', params: [id], response: { status: 200, schema: 'DiscoveryResults' }, errors: [404] }),
  dc({ method: 'POST', path: '/api/v1/discovery/{session_id}/pause', scope: 'discovery:write', summary: 'Pause a running session (its frontier is kept)', params: [id], response: { status: 200, schema: 'DiscoveryPaused' }, errors: [404, 409] }),
  dc({ method: 'POST', path: '/api/v1/discovery/{session_id}/resume', scope: 'discovery:write', summary: 'Resume a paused session where it stopped', params: [id], response: { status: 200, schema: 'DiscoveryResumed' }, errors: [404, 409] }),
  dc({ method: 'DELETE', path: '/api/v1/discovery/{session_id}', scope: 'discovery:write', summary: 'Cancel a running or paused session', params: [id], response: { status: 200, schema: 'DiscoveryCancelled' }, errors: [404, 409] }),
  dc({
    method: 'GET',
    path: '/api/v1/discovery/{session_id}/stream',
    scope: 'discovery:read',
    summary: 'Server-Sent Events of the crawl',
    description:
      'Events `page_discovered` (url, title, status_code, depth, content_type, reached_by), `flow_detected` (type, flow_id, pages), `warning` (code, message, pages, count: the first time a kind of warning appears), `completion` (status, pages_crawled, flows_detected, warnings); resumable with `Last-Event-ID`; a stream opened after the end replays and closes.',
    params: [id],
    response: { status: 200, contentType: 'text/event-stream' },
    errors: [404],
  }),
  dc({
    method: 'POST',
    path: '/api/v1/discovery/{session_id}/generate-test-cases',
    scope: 'discovery:write',
    summary: 'Turn detected flows into test cases of the session’s project',
    description: 'Steps use stable selectors (ids, data-testid, names, labels); an optional `test_plan_id` gets the new cases appended.',
    params: [id],
    body: 'DiscoveryGenerateRequest',
    response: { status: 201, schema: 'DiscoveryGenerated' },
    errors: [400, 404, 409],
  }),
];

export const DISCOVERY_CRAWLER_INTERNAL_ROUTES = {
  sessionEvidence: { service: 'discovery-crawler', method: 'GET', path: '/internal/sessions/{session_id}/evidence' },
  sessionTestCases: { service: 'discovery-crawler', method: 'GET', path: '/internal/sessions/{session_id}/test-cases' },
  storeEnrichment: { service: 'discovery-crawler', method: 'PUT', path: '/internal/sessions/{session_id}/enrichment' },
} as const satisfies Record<string, InternalRouteContract>;
