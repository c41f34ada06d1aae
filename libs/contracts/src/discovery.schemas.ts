import { ACCESSIBILITY_VIOLATION } from './execution.schemas.js';
import type { JsonSchema } from './json-schema.js';

const timestamp = { type: 'string', format: 'date-time' };
const int = { type: 'integer', minimum: 0 };
const glob = { type: 'string', minLength: 1, maxLength: 500 };

/** Bounds of a discovery session where the spec gives none (documented in the crawler's README). */
export const DISCOVERY_LIMITS = {
  maxPages: { min: 1, max: 1000, default: 100 },
  maxDepth: { min: 0, max: 20, default: 5 },
  requestDelayMs: { min: 0, max: 60_000, default: 500 },
  patterns: 50,
} as const;

const L = DISCOVERY_LIMITS;

/** A detected user flow, in results and in `discovery.flow.detected`. */
export const DISCOVERY_FLOW: JsonSchema = {
  type: 'object',
  required: ['flow_id', 'type', 'pages'],
  properties: {
    flow_id: { type: 'string' },
    type: { type: 'string', enum: ['authentication', 'checkout', 'search', 'form_submission', 'navigation', 'crud'] },
    pages: { type: 'array', items: { type: 'string' } },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        required: ['action'],
        properties: {
          action: {
            type: 'string',
            enum: ['navigate', 'fill_form', 'submit', 'click', 'type', 'wait_for', 'press', 'dblclick', 'hover', 'wait_gone'],
            description: '`type`: key by key into a type-ahead; `wait_for`: content a script renders (a dialog\'s field, suggestions, an item just added) that the next step needs; `press`: a key (`value`) in a field; `dblclick`, `hover`: as a person does (an item edited by double-click, a delete button shown on hover); `wait_gone`: what the last step removed is gone.',
          },
          url: { type: 'string' },
          selector: { type: 'string' },
          value: { type: 'string' },
        },
      },
    },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    evidence: { type: 'array', items: { type: 'string' } },
    name: { type: 'string', description: 'In results of a session started with enable_ai_analysis, once enriched: a name from page evidence.' },
    description: { type: 'string', description: 'In results of a session started with enable_ai_analysis, once enriched.' },
  },
};
const progress = {
  type: 'object',
  required: ['percent', 'pages_discovered', 'pages_crawled', 'pages_pending', 'flows_detected', 'patterns_found', 'api_endpoints'],
  properties: {
    percent: { type: 'integer', minimum: 0, maximum: 100 },
    pages_discovered: int,
    pages_crawled: int,
    pages_pending: int,
    flows_detected: int,
    patterns_found: int,
    api_endpoints: int,
  },
};
const status = { type: 'string', enum: ['running', 'paused', 'cancelled', 'completed', 'failed'] };

/** The kinds of warning a session can carry (see the crawler's README, Warnings). */
export const DISCOVERY_WARNING_CODES = ['empty_page', 'script_errors', 'not_still', 'handler_links', 'robots_blocked', 'single_page', 'no_flows', 'unreachable_routes', 'unexplored_pages'] as const;

/** What may make a session's results incomplete, in progress, results and the stream's `warning` events. */
export const DISCOVERY_WARNING: JsonSchema = {
  type: 'object',
  required: ['code', 'message', 'pages', 'count'],
  properties: {
    code: { type: 'string', enum: [...DISCOVERY_WARNING_CODES] },
    message: { type: 'string', description: 'What happened and what it means for the results, in a sentence or two.' },
    pages: { type: 'array', maxItems: 5, items: { type: 'string' }, description: 'Up to five pages it concerns.' },
    count: { ...int, description: 'How many pages (for robots_blocked: links) it concerns.' },
  },
};
const warnings = { type: 'array', items: DISCOVERY_WARNING, description: 'What may make the results incomplete (an empty shell, script errors, links only as handlers, robots.txt refusals, ...); empty when nothing did.' };

export const discoverySchemas: Record<string, JsonSchema> = {
  DiscoveryStartRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['project_id', 'target_url'],
    properties: {
      project_id: { type: 'string', minLength: 1, maxLength: 64 },
      target_url: { type: 'string', minLength: 1, maxLength: 2000, description: 'http(s) URL where the crawl starts; its origin is the crawl scope.' },
      max_pages: { type: 'integer', minimum: L.maxPages.min, maximum: L.maxPages.max, default: L.maxPages.default },
      max_depth: { type: 'integer', minimum: L.maxDepth.min, maximum: L.maxDepth.max, default: L.maxDepth.default, description: 'Links followed from target_url (0: that page only).' },
      include_patterns: { type: 'array', maxItems: L.patterns, items: glob, description: 'Globs on the URL path (`*` one segment, `**` any depth): only matching pages are crawled (target_url always is).' },
      exclude_patterns: { type: 'array', maxItems: L.patterns, items: glob, description: 'Globs on the URL path: matching pages are never crawled.' },
      headless: { type: 'boolean', default: true },
      wait_for_navigation: { type: 'boolean', default: true, description: 'Wait for the page’s own XHR/fetch calls to settle before reading it.' },
      interactive: {
        type: 'boolean',
        default: false,
        description:
          'Also exercise each crawled page: type into its search boxes, fill its visible forms with generated values and submit them, click its in-page buttons, and record the XHR/fetch calls and form posts this causes (api_endpoints, crud and form_submission evidence). Calls that would write (anything but GET, HEAD and OPTIONS) are held unless allow_writes is true. Bounded per page; never on pages robots.txt disallows or the egress policy refuses; payment forms and sign-out or account-deletion buttons are left alone.',
      },
      allow_writes: {
        type: 'boolean',
        default: false,
        description:
          'With interactive: let exploration change data on the target (its forms and buttons may POST, PUT, PATCH or DELETE), and look for record flows (crud: create, see it listed, edit, delete). Off: every call or form post that would write is held in the browser and never reaches the target; the flows record the call it would have made. Point it only at a test environment.',
      },
      accessibility: {
        type: 'boolean',
        default: false,
        description:
          'Also scan each crawled page with axe-core (the scan of `assert_accessible`: WCAG 2 A and AA rules, every impact) as it loaded; each page of the results lists its violations (rule, impact, help URL, nodes). About half a second per page.',
      },
      enable_ai_analysis: {
        type: 'boolean',
        default: false,
        description:
          'When the crawl ends the analysis service enriches the results (`ai_analysis`): flows named and described from page evidence, suggested test names and assertions. With an OpenAI-compatible endpoint configured (ANALYSIS_LLM_URL) it writes the prose; flows, scores and steps never depend on it.',
      },
      request_delay_ms: {
        type: 'integer',
        minimum: L.requestDelayMs.min,
        maximum: L.requestDelayMs.max,
        default: L.requestDelayMs.default,
        description: 'Least time between two page requests (robots.txt Crawl-delay wins when longer).',
      },
    },
  },
  DiscoveryStarted: {
    type: 'object',
    required: ['session_id', 'project_id', 'target_url', 'status', 'started_at', 'estimated_completion'],
    properties: { session_id: { type: 'string' }, project_id: { type: 'string' }, target_url: { type: 'string' }, status: { const: 'running' }, started_at: timestamp, estimated_completion: timestamp },
  },
  DiscoveryProgress: {
    type: 'object',
    required: ['session_id', 'project_id', 'target_url', 'status', 'started_at', 'progress', 'current_page', 'elapsed_seconds', 'estimated_remaining_seconds'],
    properties: {
      session_id: { type: 'string' },
      project_id: { type: 'string' },
      target_url: { type: 'string' },
      status,
      started_at: timestamp,
      estimated_completion: { type: ['string', 'null'], format: 'date-time' },
      progress,
      current_page: { type: ['string', 'null'] },
      elapsed_seconds: int,
      estimated_remaining_seconds: int,
      warnings,
      error: { type: 'string', description: 'Why a `failed` session stopped.' },
    },
  },
  DiscoveryResults: {
    type: 'object',
    required: ['session_id', 'status', 'summary', 'pages', 'flows', 'patterns', 'api_endpoints'],
    properties: {
      session_id: { type: 'string' },
      status,
      summary: {
        type: 'object',
        required: ['total_pages', 'unique_flows', 'ui_patterns', 'api_endpoints', 'discovery_confidence'],
        properties: {
          total_pages: int,
          unique_flows: int,
          ui_patterns: int,
          api_endpoints: int,
          discovery_confidence: { type: 'number', minimum: 0, maximum: 1, description: 'The mean confidence of the flows (0 without any), lowered once for each kind of warning the session carries.' },
        },
      },
      warnings,
      pages: {
        type: 'array',
        items: {
          type: 'object',
          required: ['url', 'title', 'status_code', 'content_type', 'response_time_ms', 'links_found', 'forms_found', 'api_calls'],
          properties: {
            url: { type: 'string' },
            title: { type: 'string' },
            status_code: { type: 'integer' },
            content_type: { type: 'string' },
            response_time_ms: int,
            links_found: int,
            forms_found: int,
            api_calls: int,
            depth: int,
            reached_by: {
              type: 'string',
              enum: ['direct', 'in_app'],
              description: '`in_app`: a client-side route whose direct load the server refused (status_code is that real answer, e.g. 404), read by clicking through the app from the page that links it.',
            },
            accessibility: {
              type: 'object',
              description: 'Sessions started with `accessibility: true`, HTML pages only: the WCAG 2 A/AA violations axe-core found (`violations`: rule, impact, help, help_url, nodes), or `error` when the scan could not run.',
              properties: {
                violations: {
                  type: 'array',
                  items: ACCESSIBILITY_VIOLATION,
                },
                error: { type: 'string' },
              },
            },
          },
        },
      },
      flows: { type: 'array', items: DISCOVERY_FLOW },
      patterns: {
        type: 'array',
        items: {
          type: 'object',
          required: ['pattern_id', 'type', 'examples'],
          properties: { pattern_id: { type: 'string' }, type: { type: 'string' }, occurrences: int, average_fields: int, links: int, location: { type: 'string' }, examples: { type: 'array', items: { type: 'string' } } },
        },
      },
      api_endpoints: {
        type: 'array',
        items: {
          type: 'object',
          required: ['method', 'endpoint', 'response_time_ms', 'status_code'],
          properties: {
            method: { type: 'string' },
            endpoint: { type: 'string', description: 'The path, ids templated (`{id}`: numbers, UUIDs) and three or more siblings differing in one segment folded into `{slug}`.' },
            response_time_ms: { ...int, description: 'The median call.' },
            status_code: { type: 'integer', description: 'The status most calls answered.' },
            calls: int,
            min_response_time_ms: int,
            median_response_time_ms: int,
            max_response_time_ms: int,
            paths: { ...int, description: 'Distinct paths this endpoint stands for (1 unless templated by structure).' },
          },
        },
      },
      generated_test_cases: {
        type: 'array',
        description: 'Test cases made from this session’s flows with generate-test-cases, oldest first (a case deleted since still shows here).',
        items: {
          type: 'object',
          required: ['test_case_id', 'name', 'flow_id', 'created_at'],
          properties: { test_case_id: { type: 'string' }, name: { type: 'string' }, flow_id: { type: 'string' }, created_at: timestamp },
        },
      },
      ai_analysis: {
        type: 'object',
        description: 'Only for sessions started with enable_ai_analysis: `pending` until the analysis service enriched the ended crawl.',
        required: ['status'],
        properties: {
          status: { type: 'string', enum: ['pending', 'completed'] },
          summary: { type: 'string' },
          prose_source: { type: 'string', enum: ['deterministic', 'llm'] },
          model: { type: 'string' },
          completed_at: timestamp,
          flows: {
            type: 'array',
            items: {
              type: 'object',
              required: ['flow_id', 'name', 'description', 'suggested_tests'],
              properties: {
                flow_id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
                prose_source: { type: 'string' },
                suggested_tests: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['name', 'assertions'],
                    properties: {
                      name: { type: 'string' },
                      assertions: { type: 'array', items: { type: 'object', required: ['action', 'selector'], properties: { action: { type: 'string' }, selector: { type: 'string' }, value: { type: 'string' }, description: { type: 'string' } } } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
  DiscoverySession: {
    type: 'object',
    description: 'A session as the list shows it: what it crawls, where it stands and what it found so far.',
    required: ['session_id', 'project_id', 'target_url', 'status', 'started_at', 'completed_at', 'pages_crawled', 'flows_detected'],
    properties: {
      session_id: { type: 'string' },
      project_id: { type: 'string' },
      target_url: { type: 'string' },
      status,
      started_at: timestamp,
      completed_at: { type: ['string', 'null'], format: 'date-time', description: 'When it completed, was cancelled or failed; null while running or paused.' },
      pages_crawled: int,
      flows_detected: int,
      error: { type: 'string', description: 'Why a `failed` session stopped.' },
    },
  },
  DiscoverySessionList: {
    type: 'object',
    required: ['data', 'pagination'],
    properties: { data: { type: 'array', items: { $ref: 'DiscoverySession' } }, pagination: { $ref: 'Pagination' } },
  },
  DiscoveryPaused: {
    type: 'object',
    required: ['session_id', 'status', 'pages_crawled', 'paused_at'],
    properties: { session_id: { type: 'string' }, status: { const: 'paused' }, pages_crawled: int, paused_at: timestamp },
  },
  DiscoveryResumed: {
    type: 'object',
    required: ['session_id', 'status', 'resumed_at'],
    properties: { session_id: { type: 'string' }, status: { const: 'running' }, resumed_at: timestamp },
  },
  DiscoveryCancelled: {
    type: 'object',
    required: ['session_id', 'status', 'cancelled_at', 'pages_crawled'],
    properties: { session_id: { type: 'string' }, status: { const: 'cancelled' }, cancelled_at: timestamp, pages_crawled: int },
  },
  DiscoveryGenerateRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      flow_ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 64 }, description: 'Default: every detected flow.' },
      test_plan_id: { type: 'string', minLength: 1, maxLength: 64, description: 'A plan of the session’s project the new cases are appended to.' },
    },
  },
  DiscoveryGenerated: {
    type: 'object',
    required: ['session_id', 'project_id', 'test_cases'],
    properties: {
      session_id: { type: 'string' },
      project_id: { type: 'string' },
      test_plan_id: { type: ['string', 'null'] },
      test_cases: { type: 'array', items: { $ref: 'TestCase' } },
    },
  },
};
