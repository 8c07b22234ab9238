// The *.is_valid built-ins (src/eval/builtins/is-valid.ts): true for text their reader
// accepts, false for text it refuses and for operands that are not strings, never an error.
import { describe, expect, it } from 'vitest';
import { RSet } from '../../../src/value/index.js';
import { call } from './builtin-calls.js';

const SCHEMA = 'type Query { name: String }';

describe('*.is_valid', () => {
  it.each([
    ['json.is_valid', ['{"a": [1, 2]}'], true],
    ['json.is_valid', ['{"a": '], false],
    ['json.is_valid', [1], false],
    ['yaml.is_valid', ['a: [1, 2]\nb: c\n'], true],
    ['yaml.is_valid', ['a: [1, 2\n'], false],
    ['yaml.is_valid', [RSet.of('a: 1')], false],
    ['graphql.schema_is_valid', [SCHEMA], true],
    ['graphql.schema_is_valid', ['type Query { name: Missing }'], false],
    ['graphql.schema_is_valid', [null], false],
    ['graphql.is_valid', ['{ name }', SCHEMA], true],
    ['graphql.is_valid', ['{ age }', SCHEMA], false],
    ['graphql.is_valid', [{ query: '{ name }' }, SCHEMA], false],
    ['graphql.is_valid', ['{ name }', 7], false],
  ] as const)('%s(%j) is %s', (name, args, want) => {
    expect(call(name, ...(args as unknown as Parameters<typeof call>[1][]))).toBe(want);
  });
});
