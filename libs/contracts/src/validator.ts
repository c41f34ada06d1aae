import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { authSchemas } from './auth.schemas.js';
import { commonSchemas } from './common.schemas.js';
import { testCaseSchemas } from './testcase.schemas.js';
import { executionSchemas } from './execution.schemas.js';
import { recordingSchemas } from './recording.schemas.js';
import { suiteSchemas } from './suite.schemas.js';
import { discoverySchemas } from './discovery.schemas.js';
import { webhookSchemas } from './webhook.schemas.js';
import { analysisSchemas } from './analysis.schemas.js';
import { saasSchemas } from './saas.schemas.js';
import { EVENTS } from './events.js';
import type { JsonSchema } from './json-schema.js';
import type { FieldError } from './field-error.js';

// ajv-formats is CommonJS with a default export; under NodeNext the callable is on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

/** Every named schema: each area’s schema module is merged here. */
export const SCHEMAS: Record<string, JsonSchema> = { ...commonSchemas, ...authSchemas, ...testCaseSchemas, ...executionSchemas, ...recordingSchemas, ...suiteSchemas, ...discoverySchemas, ...webhookSchemas, ...analysisSchemas, ...saasSchemas };

function withRefs(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"([A-Za-z0-9_]+)"/g, '"$ref":"assay:$1"')) as JsonSchema;
}

function toFieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  return (errors ?? []).map((e) => {
    const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      return { field: base ? `${base}.${missing}` : missing, message: 'is required' };
    }
    if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      return { field: base ? `${base}.${extra}` : extra, message: 'is not a known field' };
    }
    if (e.keyword === 'enum') {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      return { field: base || 'body', message: `must be one of ${allowed.join(', ')}` };
    }
    return { field: base || 'body', message: e.message ?? 'is invalid' };
  });
}

/** Validates data against named schemas of the catalog. */
export class ContractValidator {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(schemas: Record<string, JsonSchema> = SCHEMAS) {
    this.ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(this.ajv);
    for (const [name, schema] of Object.entries(schemas)) this.ajv.addSchema(withRefs(schema), `assay:${name}`);
    for (const [type, contract] of Object.entries(EVENTS)) this.ajv.addSchema(withRefs(contract.data), `assay:event:${type}`);
  }

  /** Field errors of `data` against schema `name`; empty when valid. */
  validate(name: string, data: unknown): FieldError[] {
    let fn = this.cache.get(name);
    if (!fn) {
      const compiled = this.ajv.getSchema(`assay:${name}`);
      if (!compiled) throw new Error(`Unknown schema "${name}"`);
      fn = compiled;
      this.cache.set(name, fn);
    }
    return fn(data) ? [] : toFieldErrors(fn.errors);
  }

  /** Field errors of an event's `data` against its catalog entry. */
  validateEventData(type: string, data: unknown): FieldError[] {
    return this.validate(`event:${type}`, data);
  }
}

let shared: ContractValidator | undefined;

/** The process-wide validator (compiling schemas is the costly part). */
export function contractValidator(): ContractValidator {
  shared ??= new ContractValidator();
  return shared;
}
