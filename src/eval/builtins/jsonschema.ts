// json.verify_schema / json.match_schema. OPA uses gojsonschema; here ajv (draft-07)
// validates, and its errors are reshaped into gojsonschema's {error, type, field, desc}
// records with gojsonschema's wording for the common keywords.

import type AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type addFormatsModule from 'ajv-formats';
import { RObject, isPlainObject, newPlainObject, toJS, type Value } from '../../value/index.js';
import { builtinError, operandError } from './errors.js';
import { defaultExport, lazyRequire } from './lazy-require.js';
import { registerBuiltins, type BuiltinImpl } from './registry.js';

// ajv (with its formats) is loaded on the first schema these built-ins compile.
const ajvModule = lazyRequire<unknown>('ajv');
const ajvFormatsModule = lazyRequire<unknown>('ajv-formats');
type Ajv = InstanceType<typeof AjvModule.default>;
let ajvInstance: Ajv | undefined;

function ajv(): Ajv {
  if (!ajvInstance) {
    const Ajv = defaultExport<typeof AjvModule.default>(ajvModule());
    const addFormats = defaultExport<typeof addFormatsModule.default>(ajvFormatsModule());
    ajvInstance = new Ajv({ allErrors: true, strict: false, validateSchema: true });
    addFormats(ajvInstance);
  }
  return ajvInstance;
}

const VALID_TYPES = ['array', 'boolean', 'integer', 'number', 'null', 'object', 'string'];
const MAX = 100;
const cache = new Map<string, ValidateFunction | Error>();

class SchemaError extends Error {}

/** gojsonschema's message for a `type` that is not a JSON type. */
function checkTypes(schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach(checkTypes);
  if (schema === null || typeof schema !== 'object') return;
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (k === 'type') {
      for (const t of Array.isArray(v) ? v : [v])
        if (typeof t === 'string' && !VALID_TYPES.includes(t))
          throw new SchemaError(`has a primitive type that is NOT VALID -- given: /${t}/ Expected valid values are:[${VALID_TYPES.join(' ')}]`);
    } else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') checkTypes(v);
  }
}

/** Parses a string operand as JSON, or converts an object operand. */
function operandJSON(v: Value, pos: number): unknown {
  if (typeof v === 'string') {
    try {
      return JSON.parse(v);
    } catch (e) {
      throw new SchemaError((e as Error).message);
    }
  }
  if (isPlainObject(v) || v instanceof RObject) return toJS(v);
  throw operandError(pos, 'one of {string, object}', v);
}

function compile(schema: unknown): ValidateFunction {
  if (typeof schema === 'boolean') schema = schema ? {} : { not: {} };
  const key = JSON.stringify(schema);
  let hit: ValidateFunction | Error | undefined = cache.get(key);
  if (hit === undefined) {
    try {
      checkTypes(schema);
      hit = ajv().compile(schema as object);
    } catch (e) {
      hit = e instanceof SchemaError ? e : new SchemaError((e as Error).message);
    }
    cache.set(key, hit!);
    if (cache.size > MAX) cache.delete(cache.keys().next().value!);
  }
  if (hit instanceof Error) throw hit;
  return hit!;
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

/** One ajv error as gojsonschema would report it. */
function toResultError(e: ErrorObject, doc: unknown): Value {
  const p = e.params as Record<string, unknown>;
  let field = fieldOf(e.instancePath);
  let type = e.keyword;
  let desc = e.message ?? '';
  const list = (xs: unknown) => (Array.isArray(xs) ? xs : [xs]).map((x) => JSON.stringify(x)).join(', ');
  switch (e.keyword) {
    case 'type':
      type = 'invalid_type';
      desc = `Invalid type. Expected: ${Array.isArray(p.type) ? p.type.join(', ') : String(p.type)}, given: ${goType(valueAt(doc, e.instancePath))}`;
      break;
    case 'required':
      desc = `${String(p.missingProperty)} is required`;
      break;
    case 'enum':
      desc = `${field} must be one of the following: ${list(p.allowedValues)}`;
      break;
    case 'const':
      desc = `${field} does not match: ${JSON.stringify(p.allowedValue)}`;
      break;
    case 'minLength':
      type = 'string_gte';
      desc = `String length must be greater than or equal to ${String(p.limit)}`;
      break;
    case 'maxLength':
      type = 'string_lte';
      desc = `String length must be less than or equal to ${String(p.limit)}`;
      break;
    case 'pattern':
      desc = `Does not match pattern '${String(p.pattern)}'`;
      break;
    case 'format':
      desc = `Does not match format '${String(p.format)}'`;
      break;
    case 'minimum':
      type = 'number_gte';
      desc = `Must be greater than or equal to ${String(p.limit)}`;
      break;
    case 'exclusiveMinimum':
      type = 'number_gt';
      desc = `Must be greater than ${String(p.limit)}`;
      break;
    case 'maximum':
      type = 'number_lte';
      desc = `Must be less than or equal to ${String(p.limit)}`;
      break;
    case 'exclusiveMaximum':
      type = 'number_lt';
      desc = `Must be less than ${String(p.limit)}`;
      break;
    case 'multipleOf':
      type = 'multiple_of';
      desc = `Must be a multiple of ${String(p.multipleOf)}`;
      break;
    case 'minItems':
      type = 'array_min_items';
      desc = `Array must have at least ${String(p.limit)} items`;
      break;
    case 'maxItems':
      type = 'array_max_items';
      desc = `Array must have at most ${String(p.limit)} items`;
      break;
    case 'uniqueItems':
      type = 'unique';
      desc = `array items[${String(p.j)},${String(p.i)}] must be unique`;
      break;
    case 'minProperties':
      type = 'array_min_properties';
      desc = `Must have at least ${String(p.limit)} properties`;
      break;
    case 'maxProperties':
      type = 'array_max_properties';
      desc = `Must have at most ${String(p.limit)} properties`;
      break;
    case 'additionalProperties':
      type = 'additional_property_not_allowed';
      desc = `Additional property ${String(p.additionalProperty)} is not allowed`;
      break;
    case 'anyOf':
      type = 'number_any_of';
      desc = 'Must validate at least one schema (anyOf)';
      break;
    case 'oneOf':
      type = 'number_one_of';
      desc = 'Must validate one and only one schema (oneOf)';
      break;
    case 'not':
      type = 'number_not';
      desc = 'Must not validate the schema (not)';
      break;
    case 'if':
      type = p.failingKeyword === 'else' ? 'condition_else' : 'condition_then';
      desc = `Must validate "${String(p.failingKeyword)}" as "if" was ${p.failingKeyword === 'else' ? 'not valid' : 'valid'}`;
      break;
    case 'dependencies':
      type = 'missing_dependency';
      desc = `Has a dependency on ${String(p.missingProperty)}`;
      break;
    case 'contains':
      desc = 'At least one of the items must match';
      break;
    case 'additionalItems':
      type = 'array_no_additional_items';
      desc = 'No additional items allowed on array';
      break;
    case 'false schema':
      type = 'false';
      desc = 'False always fails validation';
      break;
  }
  if (field === '') field = '(root)';
  const out = newPlainObject();
  out.error = `${field}: ${desc}`;
  out.type = type;
  out.field = field;
  out.desc = desc;
  return out;
}

const defs: BuiltinImpl[] = [
  {
    name: 'json.verify_schema',
    fn: (a) => {
      try {
        compile(operandJSON(a[0]!, 1));
        return [true, null];
      } catch (e) {
        if (e instanceof SchemaError) return [false, 'jsonschema: ' + e.message];
        throw e;
      }
    },
  },
  {
    name: 'json.match_schema',
    fn: (a) => {
      try {
        const doc = operandJSON(a[0]!, 1);
        const validate = compile(operandJSON(a[1]!, 2));
        if (validate(doc)) return [true, []];
        return [false, (validate.errors ?? []).map((e) => toResultError(e, doc))];
      } catch (e) {
        if (e instanceof SchemaError) throw builtinError(e.message);
        throw e;
      }
    },
  },
];

registerBuiltins(defs);
