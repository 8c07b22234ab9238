// JSON Schema -> Rego type (--schema): each construct the converter reads, and `any` for
// what it does not.

import { describe, expect, it } from 'vitest';
import { schemaToType, SchemaError } from '../../src/compiler/schema-types.js';

const S = { type: 'string' };
const N = { type: 'number' };

describe('schemaToType', () => {
  it('scalars: string, number, integer, boolean, null; a list of types is a union', () => {
    expect(schemaToType({ type: 'string' })).toEqual(S);
    expect(schemaToType({ type: 'integer' })).toEqual(N);
    expect(schemaToType({ type: 'boolean' })).toEqual({ type: 'boolean' });
    expect(schemaToType({ type: 'null' })).toEqual({ type: 'null' });
    expect(schemaToType({ type: ['string', 'null'] })).toEqual({ type: 'any', of: [S, { type: 'null' }] });
  });

  it('objects: properties are static keys (required is ignored); additionalProperties is the dynamic part', () => {
    const closed = schemaToType({ type: 'object', required: ['b'], properties: { b: S, a: N } });
    expect(closed).toEqual({ type: 'object', static: [{ key: 'a', value: N }, { key: 'b', value: S }] });
    const open = schemaToType({ type: 'object', properties: { a: N }, additionalProperties: S });
    expect(open).toEqual({ type: 'object', static: [{ key: 'a', value: N }], dynamic: { key: { type: 'any' }, value: { type: 'any' } } });
    expect(schemaToType({ type: 'object', properties: { a: N }, patternProperties: { '^x': S } })).toEqual(open);
    expect(schemaToType({ type: 'object' })).toEqual({ type: 'object', dynamic: { key: { type: 'any' }, value: { type: 'any' } } });
  });

  it('arrays: items is the element type; a list of items is a tuple', () => {
    expect(schemaToType({ type: 'array', items: S })).toEqual({ type: 'array', dynamic: S });
    expect(schemaToType({ type: 'array', items: [S, N] })).toEqual({ type: 'array', static: [S, N] });
    expect(schemaToType({ type: 'array' })).toEqual({ type: 'array', dynamic: { type: 'any' } });
  });

  it('anyOf/oneOf are unions; allOf merges objects', () => {
    expect(schemaToType({ anyOf: [S, N] })).toEqual({ type: 'any', of: [S, N] });
    expect(schemaToType({ oneOf: [S, S] })).toEqual(S);
    const merged = schemaToType({ allOf: [{ type: 'object', properties: { a: S } }, { type: 'object', properties: { b: N } }] });
    expect(merged).toEqual({ type: 'object', static: [{ key: 'a', value: S }, { key: 'b', value: N }] });
  });

  it('enum and const give the type of their values', () => {
    expect(schemaToType({ enum: ['a', 'b'] })).toEqual(S);
    expect(schemaToType({ enum: ['a', 1] })).toEqual({ type: 'any', of: [S, N] });
    expect(schemaToType({ const: true })).toEqual({ type: 'boolean' });
  });

  it('$ref within the document (#/definitions, #/$defs); recursion stops at any; others are errors', () => {
    const doc = {
      type: 'object',
      properties: { user: { $ref: '#/definitions/user' }, tag: { $ref: '#/$defs/tag' } },
      definitions: { user: { type: 'object', properties: { name: S, boss: { $ref: '#/definitions/user' } } } },
      $defs: { tag: S },
    };
    expect(schemaToType(doc)).toEqual({
      type: 'object',
      static: [
        { key: 'tag', value: S },
        { key: 'user', value: { type: 'object', static: [{ key: 'boss', value: { type: 'any' } }, { key: 'name', value: S }] } },
      ],
    });
    expect(() => schemaToType({ $ref: '#/definitions/none' })).toThrow(SchemaError);
    expect(() => schemaToType({ $ref: 'http://example.com/s.json' })).toThrow(/only references within the schema document/);
  });

  it('constructs it does not read are any', () => {
    expect(schemaToType({ not: S })).toEqual({ type: 'any' });
    expect(schemaToType(true)).toEqual({ type: 'any' });
    expect(schemaToType({ type: 'object', properties: { a: { if: S } } })).toEqual({ type: 'object', static: [{ key: 'a', value: { type: 'any' } }] });
  });
});
