// ajv's validation errors in gojsonschema's words: the {error, type, field, desc} records
// json.match_schema returns, with gojsonschema's error type and wording for each keyword.

import type { ErrorObject } from 'ajv';
import { newPlainObject, type Value } from '../../value/index.js';

type Params = Record<string, unknown>;

/** A keyword's gojsonschema error type (when it differs from the keyword) and description. */
type Wording = (p: Params, field: string, actual: () => unknown) => { type?: string; desc: string };

const list = (xs: unknown) => (Array.isArray(xs) ? xs : [xs]).map((x) => JSON.stringify(x)).join(', ');

const WORDING: Record<string, Wording> = {
  type: (p, _, actual) => ({
    type: 'invalid_type',
    desc: `Invalid type. Expected: ${Array.isArray(p.type) ? p.type.join(', ') : String(p.type)}, given: ${goType(actual())}`,
  }),
  required: (p) => ({ desc: `${String(p.missingProperty)} is required` }),
  enum: (p, field) => ({ desc: `${field} must be one of the following: ${list(p.allowedValues)}` }),
  const: (p, field) => ({ desc: `${field} does not match: ${JSON.stringify(p.allowedValue)}` }),
  minLength: (p) => ({ type: 'string_gte', desc: `String length must be greater than or equal to ${String(p.limit)}` }),
  maxLength: (p) => ({ type: 'string_lte', desc: `String length must be less than or equal to ${String(p.limit)}` }),
  pattern: (p) => ({ desc: `Does not match pattern '${String(p.pattern)}'` }),
  format: (p) => ({ desc: `Does not match format '${String(p.format)}'` }),
  minimum: (p) => ({ type: 'number_gte', desc: `Must be greater than or equal to ${String(p.limit)}` }),
  exclusiveMinimum: (p) => ({ type: 'number_gt', desc: `Must be greater than ${String(p.limit)}` }),
  maximum: (p) => ({ type: 'number_lte', desc: `Must be less than or equal to ${String(p.limit)}` }),
  exclusiveMaximum: (p) => ({ type: 'number_lt', desc: `Must be less than ${String(p.limit)}` }),
  multipleOf: (p) => ({ type: 'multiple_of', desc: `Must be a multiple of ${String(p.multipleOf)}` }),
  minItems: (p) => ({ type: 'array_min_items', desc: `Array must have at least ${String(p.limit)} items` }),
  maxItems: (p) => ({ type: 'array_max_items', desc: `Array must have at most ${String(p.limit)} items` }),
  uniqueItems: (p) => ({ type: 'unique', desc: `array items[${String(p.j)},${String(p.i)}] must be unique` }),
  minProperties: (p) => ({ type: 'array_min_properties', desc: `Must have at least ${String(p.limit)} properties` }),
  maxProperties: (p) => ({ type: 'array_max_properties', desc: `Must have at most ${String(p.limit)} properties` }),
  additionalProperties: (p) => ({ type: 'additional_property_not_allowed', desc: `Additional property ${String(p.additionalProperty)} is not allowed` }),
  anyOf: () => ({ type: 'number_any_of', desc: 'Must validate at least one schema (anyOf)' }),
  oneOf: () => ({ type: 'number_one_of', desc: 'Must validate one and only one schema (oneOf)' }),
  not: () => ({ type: 'number_not', desc: 'Must not validate the schema (not)' }),
  if: (p) => ({
    type: p.failingKeyword === 'else' ? 'condition_else' : 'condition_then',
    desc: `Must validate "${String(p.failingKeyword)}" as "if" was ${p.failingKeyword === 'else' ? 'not valid' : 'valid'}`,
  }),
  dependencies: (p) => ({ type: 'missing_dependency', desc: `Has a dependency on ${String(p.missingProperty)}` }),
  contains: () => ({ desc: 'At least one of the items must match' }),
  additionalItems: () => ({ type: 'array_no_additional_items', desc: 'No additional items allowed on array' }),
  'false schema': () => ({ type: 'false', desc: 'False always fails validation' }),
};

/** One ajv error as gojsonschema would report it (other keywords keep ajv's message). */
export function toResultError(e: ErrorObject, doc: unknown): Value {
  let field = fieldOf(e.instancePath);
  const wording = Object.hasOwn(WORDING, e.keyword) ? WORDING[e.keyword]! : undefined;
  const w = wording?.(e.params as Params, field, () => valueAt(doc, e.instancePath));
  const type = w?.type ?? e.keyword;
  const desc = w ? w.desc : (e.message ?? '');
  if (field === '') field = '(root)';
  const out = newPlainObject();
  out.error = `${field}: ${desc}`;
  out.type = type;
  out.field = field;
  out.desc = desc;
  return out;
}

function goType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function fieldOf(path: string): string {
  if (!path) return '(root)';
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function valueAt(doc: unknown, path: string): unknown {
  let v = doc;
  if (!path) return v;
  for (const seg of path.slice(1).split('/')) v = (v as Record<string, unknown>)?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  return v;
}
