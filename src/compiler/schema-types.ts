// JSON Schema -> a Rego type (OPA's v1/ast/schema.go), for `--schema`: the type checker
// then knows the shape of `input`. Covered: type (one or a list), properties (static keys)
// with additionalProperties/patternProperties (other keys, of any type; additionalProperties
// `false` or absent closes the object, as in OPA), items (one schema or a tuple), enum/const (the type
// of their values), anyOf/oneOf (a union), allOf (objects merged), and $ref within the
// document (#/definitions/..., #/$defs/..., any JSON pointer). Anything else is `any` for
// that part, so an unsupported construct never reports an error the schema does not imply.

import type { TypeDecl } from './builtins/types.js';

type Schema = Record<string, unknown> | boolean;

const ANY: TypeDecl = { type: 'any' };

/** The type a JSON Schema describes; throws SchemaError for a $ref that cannot be resolved. */
export function schemaToType(schema: unknown): TypeDecl {
  return new Converter(schema).convert(schema as Schema, new Set());
}

export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaError';
  }
}

class Converter {
  constructor(private readonly root: unknown) {}

  convert(s: Schema, seen: Set<string>): TypeDecl {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) return ANY;
    if (typeof s.$ref === 'string') {
      // A recursive definition: its inner uses are `any` (a type is finite).
      if (seen.has(s.$ref)) return ANY;
      return this.convert(this.resolve(s.$ref), new Set([...seen, s.$ref]));
    }
    if (Array.isArray(s.allOf)) return this.allOf(s.allOf as Schema[], seen);
    const union = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as Schema[] | undefined;
    if (union) return anyOf(union.map((x) => this.convert(x, seen)));
    if ('const' in s) return valueType(s.const);
    if (Array.isArray(s.enum)) return anyOf(s.enum.map(valueType));
    const types = Array.isArray(s.type) ? (s.type as unknown[]) : typeof s.type === 'string' ? [s.type] : undefined;
    if (!types) return s.properties !== undefined ? this.typed('object', s, seen) : s.items !== undefined ? this.typed('array', s, seen) : ANY;
    return anyOf(types.map((t) => this.typed(String(t), s, seen)));
  }

  private typed(type: string, s: Record<string, unknown>, seen: Set<string>): TypeDecl {
    switch (type) {
      case 'string':
        return { type: 'string' };
      case 'number':
      case 'integer':
        return { type: 'number' };
      case 'boolean':
        return { type: 'boolean' };
      case 'null':
        return { type: 'null' };
      case 'array':
        return this.array(s, seen);
      case 'object':
        return this.object(s, seen);
      default:
        return ANY;
    }
  }

  private array(s: Record<string, unknown>, seen: Set<string>): TypeDecl {
    if (Array.isArray(s.items)) {
      const items = (s.items as Schema[]).map((x) => this.convert(x, seen));
      return s.additionalItems === undefined || s.additionalItems === false
        ? { type: 'array', static: items }
        : { type: 'array', static: items, dynamic: this.convert(s.additionalItems as Schema, seen) };
    }
    return { type: 'array', dynamic: s.items === undefined ? ANY : this.convert(s.items as Schema, seen) };
  }

  private object(s: Record<string, unknown>, seen: Set<string>): TypeDecl {
    const props = isRecord(s.properties) ? s.properties : {};
    const statics = Object.keys(props)
      .sort()
      .map((key) => ({ key, value: this.convert(props[key] as Schema, seen) }));
    // Other keys allowed (additionalProperties other than false, patternProperties): a dynamic
    // part of any type, as OPA's parser makes it, so nothing under them is reported.
    const extra = s.additionalProperties;
    let dynamic: { key: TypeDecl; value: TypeDecl } | undefined;
    if ((extra !== undefined && extra !== false) || isRecord(s.patternProperties)) dynamic = { key: ANY, value: ANY };
    // No keys at all: nothing is known of the object's keys.
    if (!statics.length && !dynamic) dynamic = { key: ANY, value: ANY };
    return dynamic ? (statics.length ? { type: 'object', static: statics, dynamic } : { type: 'object', dynamic }) : { type: 'object', static: statics };
  }

  /** allOf: the object parts merged (keys of every part); anything else is `any`. */
  private allOf(parts: Schema[], seen: Set<string>): TypeDecl {
    const types = parts.map((p) => this.convert(p, seen));
    if (!types.every((t) => t.type === 'object')) return types.length === 1 ? types[0]! : ANY;
    const statics = new Map<string, TypeDecl>();
    let dynamic: { key: TypeDecl; value: TypeDecl } | undefined;
    for (const t of types as Extract<TypeDecl, { type: 'object' }>[]) {
      for (const p of t.static ?? []) statics.set(p.key, statics.has(p.key) ? ANY : p.value);
      if (t.dynamic && !(t.static === undefined && isAny(t.dynamic.value))) dynamic = t.dynamic;
    }
    const list = [...statics.keys()].sort().map((key) => ({ key, value: statics.get(key)! }));
    if (!list.length && !dynamic) return { type: 'object', dynamic: { key: ANY, value: ANY } };
    return dynamic ? { type: 'object', static: list, dynamic } : { type: 'object', static: list };
  }

  private resolve(ref: string): Schema {
    if (!ref.startsWith('#')) throw new SchemaError(`unsupported $ref ${JSON.stringify(ref)}: only references within the schema document (#/...) are read`);
    let at: unknown = this.root;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isRecord(at) || !(key in at)) throw new SchemaError(`$ref ${JSON.stringify(ref)} names nothing in the schema`);
      at = at[key];
    }
    return at as Schema;
  }
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function isAny(t: TypeDecl): boolean {
  return t.type === 'any' && !t.of?.length;
}

/** A union, flattened and without repeats; `any` absorbs everything. */
function anyOf(types: TypeDecl[]): TypeDecl {
  const out: TypeDecl[] = [];
  for (const t of types.flatMap((x) => (x.type === 'any' && x.of?.length ? x.of : [x]))) {
    if (isAny(t)) return ANY;
    if (!out.some((o) => JSON.stringify(o) === JSON.stringify(t))) out.push(t);
  }
  return out.length === 1 ? out[0]! : { type: 'any', of: out };
}

function valueType(v: unknown): TypeDecl {
  if (v === null) return { type: 'null' };
  if (typeof v === 'string') return { type: 'string' };
  if (typeof v === 'number') return { type: 'number' };
  if (typeof v === 'boolean') return { type: 'boolean' };
  if (Array.isArray(v)) return { type: 'array', static: v.map(valueType) };
  if (isRecord(v)) return { type: 'object', static: Object.keys(v).sort().map((key) => ({ key, value: valueType(v[key]) })) };
  return ANY;
}
