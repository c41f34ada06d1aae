/** A JSON Schema (draft 2020-12) as a plain object; `$ref: 'Name'` points at another named schema. */
export type JsonSchema = { [keyword: string]: unknown };
