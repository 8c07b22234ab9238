// json.verify_schema / json.match_schema. OPA uses gojsonschema; here ajv (draft-07)
// validates, and its errors are reshaped into gojsonschema's {error, type, field, desc}
// records with gojsonschema's wording for the common keywords.

import type AjvModule from 'ajv';
import type { ValidateFunction } from 'ajv';
import type addFormatsModule from 'ajv-formats';
import { RObject, isPlainObject, toJS, type Value } from '../../value/index.js';
import { builtinError, operandError } from './errors.js';
import { toResultError } from './jsonschema-errors.js';
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
