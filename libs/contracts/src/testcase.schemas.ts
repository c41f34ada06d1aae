import type { JsonSchema } from './json-schema.js';
import { STEP_ACTIONS, type StepActionInfo } from './step-actions.js';

const timestamp = { type: 'string', format: 'date-time' };
const id = { type: 'string', minLength: 1, maxLength: 64 };
const name = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' };
const description = { type: ['string', 'null'], maxLength: 5000 };
const httpUrl = { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2000 };
const tags = { type: 'array', maxItems: 50, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 50 } };
const priority = { type: 'string', enum: ['critical', 'high', 'medium', 'low'], description: 'Default `medium`; webhook filters use it.' };
const actions = Object.keys(STEP_ACTIONS);

/** One line per action for the OpenAPI description: its parameters and meaning. */
function describeActions(): string {
  return Object.entries(STEP_ACTIONS as Record<string, StepActionInfo>)
    .map(([action, spec]) => {
      const params = [
        spec.selector === 'required' ? 'selector' : spec.selector === 'optional' ? 'selector (optional)' : '',
        spec.value === 'required' ? (spec.emptyValue ? 'value (may be empty)' : 'value') : spec.value === 'optional' ? 'value (optional)' : '',
        ...Object.entries(spec.fields ?? {}).map(([field, need]) => (need === 'optional' ? `${field} (optional)` : field)),
      ].filter(Boolean);
      return `- \`${action}\` (${params.length ? params.join(', ') : 'no parameters'}): ${spec.meaning}`;
    })
    .join('\n');
}

const stepInput = {
  type: 'object',
  required: ['action'],
  description: `Parameters by action (a parameter an action does not take is refused; \`{{name}}\` placeholders are replaced from the run's \`variables\`; \`timeout\` is in milliseconds, 1..300000):\n${describeActions()}`,
  properties: {
    step_id: { type: 'string', maxLength: 64, description: 'Only on updates: keeps the id of an existing step.' },
    action: { type: 'string', enum: actions },
    description: { type: 'string', maxLength: 1000 },
    selector: { type: 'string', maxLength: 2000 },
    value: { type: 'string', maxLength: 10000 },
    timeout: { type: 'integer', minimum: 1, maximum: 300000, description: 'Milliseconds (`wait` only).' },
    request: {
      type: 'object',
      required: ['method', 'url'],
      description: '`request` only: the HTTP call.',
      properties: {
        method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] },
        url: { type: 'string', maxLength: 2000, description: 'A path joined to the base URL, or an absolute http(s) URL.' },
        headers: { type: 'object', additionalProperties: { type: 'string' }, description: '`{{secret.name}}` values are masked in results, logs and traces.' },
        body: { description: 'Sent as JSON (a string is sent as it is).' },
      },
    },
    expect: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 500 }, description: '`request` only: `status=201`, `status>=200`, `$.id exists`, `$.error !exists`, `$.items.length>=3`, `$.name="Ada"` (ops = != > >= < <=).' },
    save_as: { type: 'object', additionalProperties: { type: 'string' }, description: '`request` only: variable name to JSON path (`{"order_id": "$.id"}`), used later as `{{order_id}}`.' },
    threshold: { type: 'number', minimum: 0, maximum: 1, description: '`assert_screenshot` only: per-pixel colour distance below which two pixels count as equal (pixelmatch; default 0.1).' },
    max_diff_ratio: { type: 'number', minimum: 0, maximum: 1, description: '`assert_screenshot` only: the share of pixels that may differ and still pass (default 0).' },
    mask: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 2000 }, description: '`assert_screenshot` only: selectors of dynamic parts (dates, avatars), painted over in both images.' },
  },
};

const list = (item: string) => ({
  type: 'object',
  required: ['data', 'pagination'],
  properties: { data: { type: 'array', items: { $ref: item } }, pagination: { $ref: 'Pagination' } },
});

export const testCaseSchemas: Record<string, JsonSchema> = {
  Project: {
    type: 'object',
    required: ['id', 'name', 'description', 'base_url', 'environments', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: ['string', 'null'] },
      base_url: { type: 'string' },
      environments: { type: 'object', additionalProperties: { type: 'string' } },
      created_at: timestamp,
      updated_at: timestamp,
    },
  },
  ProjectCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'base_url'],
    properties: {
      name,
      description,
      base_url: httpUrl,
      environments: { $ref: 'ProjectEnvironments' },
    },
  },
  ProjectUpdateRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      name,
      description,
      base_url: httpUrl,
      environments: { $ref: 'ProjectEnvironments' },
    },
  },
  ProjectVariableRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['value'],
    properties: {
      value: { type: 'string', maxLength: 10_000, description: 'The value; for a secret, at least 4 characters (it is never returned).' },
      secret: { type: 'boolean', default: false, description: 'Store encrypted, reference as `{{secret.name}}`, mask in results, logs and traces.' },
    },
  },
  ProjectVariable: {
    type: 'object',
    required: ['name', 'environment', 'secret', 'value', 'reference', 'created_at', 'updated_at'],
    properties: {
      name: { type: 'string' },
      environment: { type: ['string', 'null'], description: 'null: every environment.' },
      secret: { type: 'boolean' },
      value: { type: ['string', 'null'], description: 'The value of a plain variable; always null for a secret.' },
      reference: { type: 'string', description: 'How a step uses it: `{{name}}` or `{{secret.name}}`.' },
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
    },
  },
  ProjectVariableList: {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: { $ref: 'ProjectVariable' } } },
  },
  ProjectVariableDeleted: {
    type: 'object',
    required: ['name', 'environment', 'deleted'],
    properties: { name: { type: 'string' }, environment: { type: ['string', 'null'] }, deleted: { type: 'boolean' } },
  },
  ProjectEnvironments: {
    type: 'object',
    description: 'Base URL per environment, e.g. {"staging": "https://staging.example.com"}; an execution picks one with `environment`.',
    maxProperties: 20,
    propertyNames: { pattern: '^[A-Za-z0-9_-]{1,32}$' },
    additionalProperties: httpUrl,
  },
  ProjectList: list('Project'),
  ProjectDeleted: {
    type: 'object',
    required: ['id', 'deleted_at', 'test_cases_removed', 'test_plans_removed'],
    properties: { id: { type: 'string' }, deleted_at: timestamp, test_cases_removed: { type: 'integer' }, test_plans_removed: { type: 'integer' } },
  },
  Step: {
    type: 'object',
    required: ['step_id', 'action'],
    properties: {
      step_id: { type: 'string' },
      action: { type: 'string', enum: actions },
      description: { type: 'string' },
      selector: { type: 'string' },
      value: { type: 'string' },
      timeout: { type: 'integer' },
      request: { type: 'object' },
      expect: { type: 'array', items: { type: 'string' } },
      save_as: { type: 'object', additionalProperties: { type: 'string' } },
      threshold: { type: 'number' },
      max_diff_ratio: { type: 'number' },
      mask: { type: 'array', items: { type: 'string' } },
    },
  },
  StepInput: stepInput,
  TestCase: {
    type: 'object',
    required: ['id', 'project_id', 'name', 'description', 'status', 'priority', 'steps', 'tags', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string' },
      project_id: { type: 'string' },
      name: { type: 'string' },
      description: { type: ['string', 'null'] },
      status: { type: 'string', enum: ['active', 'archived'] },
      priority,
      steps: { type: 'array', items: { $ref: 'Step' } },
      tags: { type: 'array', items: { type: 'string' } },
      created_at: timestamp,
      updated_at: timestamp,
      deleted_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  TestCaseCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['project_id', 'name', 'steps'],
    properties: {
      project_id: id,
      name,
      description,
      tags,
      priority,
      steps: { type: 'array', minItems: 1, maxItems: 200, items: { $ref: 'StepInput' } },
    },
  },
  TestCaseUpdateRequest: {
    type: 'object',
    minProperties: 1,
    description: 'Any subset of the test case fields. `steps` replaces the whole array. Read-only fields sent back unchanged are ignored.',
    properties: {
      name,
      description,
      tags,
      priority,
      status: { type: 'string', enum: ['active', 'archived'] },
      steps: { type: 'array', minItems: 1, maxItems: 200, items: { $ref: 'StepInput' } },
      id: { type: 'string' },
      project_id: { type: 'string' },
      created_at: {},
      updated_at: {},
      deleted_at: {},
    },
    additionalProperties: false,
  },
  TestCaseList: list('TestCase'),
  TestCaseArchived: {
    type: 'object',
    required: ['id', 'status', 'deleted_at'],
    properties: { id: { type: 'string' }, status: { type: 'string', enum: ['archived'] }, deleted_at: timestamp },
  },
  TestCaseRemoved: {
    type: 'object',
    required: ['id', 'name', 'status', 'deleted_at', 'removed_from_test_plans'],
    description: 'Answer of a permanent deletion (`force_delete=true`).',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      status: { type: 'string', enum: ['deleted'] },
      deleted_at: timestamp,
      removed_from_test_plans: { type: 'integer' },
    },
  },
  BulkDeleteRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['test_case_ids'],
    properties: {
      test_case_ids: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'string', maxLength: 64 } },
      soft_delete: { type: 'boolean', default: true, description: 'true (default): archive; false: delete permanently.' },
    },
  },
  BulkDeleteResponse: {
    type: 'object',
    required: ['deleted', 'failed', 'results'],
    properties: {
      deleted: { type: 'integer' },
      failed: { type: 'integer' },
      results: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'status'],
          properties: { id: { type: 'string' }, status: { type: 'string', enum: ['archived', 'deleted', 'not_found'] } },
        },
      },
    },
  },
  ImportResponse: {
    type: 'object',
    required: ['imported', 'failed', 'results'],
    properties: {
      imported: { type: 'integer' },
      failed: { type: 'integer' },
      results: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'id', 'status', 'row'],
          properties: {
            name: { type: ['string', 'null'] },
            id: { type: ['string', 'null'] },
            status: { type: 'string', enum: ['imported', 'failed'] },
            row: { type: 'integer', description: '1-based position of the case in the file (CSV header not counted).' },
            error: { type: 'string' },
          },
        },
      },
    },
  },
  TestPlan: {
    type: 'object',
    required: ['id', 'project_id', 'name', 'description', 'test_case_ids', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string' },
      project_id: { type: 'string' },
      name: { type: 'string' },
      description: { type: ['string', 'null'] },
      test_case_ids: { type: 'array', items: { type: 'string' }, description: 'In run order; archived cases stay listed and are skipped by runs.' },
      created_at: timestamp,
      updated_at: timestamp,
    },
  },
  TestPlanCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['project_id', 'name'],
    properties: {
      project_id: id,
      name,
      description,
      test_case_ids: { type: 'array', maxItems: 1000, uniqueItems: true, items: { type: 'string', maxLength: 64 } },
    },
  },
  TestPlanUpdateRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      name,
      description,
      test_case_ids: { type: 'array', maxItems: 1000, uniqueItems: true, items: { type: 'string', maxLength: 64 } },
    },
  },
  TestPlanList: list('TestPlan'),
  TestPlanAddCaseRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['test_case_id'],
    properties: { test_case_id: { type: 'string', minLength: 1, maxLength: 64 } },
  },
  TestPlanMembership: {
    type: 'object',
    required: ['test_plan', 'test_case_id', 'added'],
    properties: {
      test_plan: { $ref: 'TestPlan' },
      test_case_id: { type: 'string' },
      added: { type: 'boolean', description: 'false when the case was already in the plan.' },
    },
  },
  TestPlanDeleted: {
    type: 'object',
    required: ['id', 'deleted_at'],
    properties: { id: { type: 'string' }, deleted_at: timestamp },
  },
  TestPlanSnapshot: {
    type: 'object',
    required: ['test_plan', 'project', 'test_cases'],
    properties: {
      test_plan: { type: 'object' },
      project: { $ref: 'Project' },
      test_cases: { type: 'array', items: { $ref: 'TestCase' } },
    },
  },
};
