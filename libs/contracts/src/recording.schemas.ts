import type { JsonSchema } from './json-schema.js';

const timestamp = { type: 'string', format: 'date-time' };
const alternative = {
  type: 'object',
  required: ['selector', 'kind', 'stability', 'reason', 'matches'],
  properties: {
    selector: { type: 'string' },
    kind: { type: 'string', enum: ['test-id', 'role-name', 'id', 'name', 'label', 'text', 'xpath', 'position'] },
    stability: { type: 'string', enum: ['high', 'medium', 'low'] },
    reason: { type: 'string' },
    matches: { type: 'integer', description: 'Elements the selector matched when the step was recorded (1: this element alone).' },
  },
};
const recordedStep = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { type: 'string' },
    selector: { type: 'string' },
    value: { type: 'string' },
    description: { type: 'string' },
    alternatives: { type: 'array', items: alternative, description: 'The selectors that name the element, most robust first, with their stability.' },
  },
};

/** Recordings (execution-runner): a remote page in the console whose input becomes test steps. */
export const recordingSchemas: Record<string, JsonSchema> = {
  RecordingCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['project_id'],
    properties: {
      project_id: { type: 'string', minLength: 1, maxLength: 64 },
      environment: { type: 'string', minLength: 1, maxLength: 100, description: 'One of the project’s environments (its base URL); the project’s own base URL otherwise.' },
      start_path: { type: 'string', minLength: 1, maxLength: 2048, description: 'Where the page opens: a path joined to the base URL (default `/`), or an absolute URL. Recorded as the first `navigate` step.' },
    },
  },
  Recording: {
    type: 'object',
    required: ['id', 'project_id', 'base_url', 'url', 'status', 'viewport', 'steps', 'created_at', 'expires_at'],
    properties: {
      id: { type: 'string' },
      project_id: { type: 'string' },
      base_url: { type: 'string' },
      url: { type: ['string', 'null'], description: 'The page’s address now (null once stopped).' },
      status: { type: 'string', enum: ['recording', 'stopped'] },
      viewport: { type: 'object', required: ['width', 'height'], properties: { width: { type: 'integer' }, height: { type: 'integer' } } },
      steps: { type: 'array', items: recordedStep },
      created_at: timestamp,
      expires_at: { ...timestamp, description: 'When the recording closes by itself: its idle limit from the last input, or its lifetime limit.' },
      ended_reason: { type: 'string' },
    },
  },
  RecordingList: {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: { $ref: 'Recording' } } },
  },
  RecordingInput: {
    type: 'object',
    additionalProperties: false,
    required: ['type'],
    properties: {
      type: {
        type: 'string',
        enum: ['click', 'assert', 'pick', 'select', 'text', 'key', 'scroll', 'navigate', 'back', 'reload'],
        description:
          '`click` (x, y; `click_count` 2 double-clicks), `text` (typed into the focused field: a `fill` step), `key` (Enter, Escape and Tab are `press` steps; editing keys update the `fill`), `select` (x, y of a select, `value`), `assert` (x, y, `mode` visible or text: an assertion on the element, nothing clicked), `pick` (x, y: the element’s selectors, nothing recorded), `scroll` (x, y, `delta_y`), `navigate` (`url`), `back`, `reload`.',
      },
      x: { type: 'number', minimum: 0, maximum: 1280, description: 'CSS pixels in the 1280x720 page.' },
      y: { type: 'number', minimum: 0, maximum: 720 },
      click_count: { type: 'integer', minimum: 1, maximum: 2 },
      mode: { type: 'string', enum: ['visible', 'text'] },
      value: { type: 'string', maxLength: 1000 },
      text: { type: 'string', minLength: 1, maxLength: 10000 },
      key: { type: 'string', minLength: 1, maxLength: 20 },
      delta_y: { type: 'number', minimum: -10000, maximum: 10000 },
      url: { type: 'string', minLength: 1, maxLength: 2048 },
    },
  },
  RecordingInputResult: {
    type: 'object',
    required: ['url', 'steps'],
    properties: {
      recorded: {
        type: 'object',
        required: ['index', 'step', 'updated'],
        properties: { index: { type: 'integer' }, step: recordedStep, updated: { type: 'boolean', description: 'true when the input changed the last step (more text typed into the same field).' } },
      },
      element: {
        type: 'object',
        required: ['tag', 'text', 'alternatives'],
        properties: {
          tag: { type: 'string' },
          text: { type: 'string' },
          selector: { type: 'string', description: 'The most robust selector that matches this element alone; absent when none does.' },
          alternatives: { type: 'array', items: alternative },
          options: { type: 'array', items: { type: 'object', required: ['value', 'label'], properties: { value: { type: 'string' }, label: { type: 'string' } } }, description: 'A select’s options (a click on a select answers them instead of opening it).' },
        },
      },
      url: { type: 'string' },
      steps: { type: 'integer', description: 'Steps recorded so far.' },
    },
  },
};
