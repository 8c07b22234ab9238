import { describe, expect, it } from 'vitest';
import { callBuiltin } from './fake-context.js';
import { toJS, type Value } from '../../../src/value/index.js';

const call = (name: string, ...args: Value[]) => toJS(callBuiltin(name, args)!);
const schema = `
type Employee { id: String! salary: Int! }
schema { query: Query }
type Query { employeeByID(id: String!): Employee }
`;

describe('graphql', () => {
  it('validates queries against a schema', () => {
    expect(call('graphql.is_valid', '{ employeeByID(id: "alice") { salary } }', schema)).toBe(true);
    expect(call('graphql.is_valid', '{ employeeByID(id: "alice") { age } }', schema)).toBe(false);
    expect(call('graphql.is_valid', '{ employeeByID(id: 1) { salary } }', schema)).toBe(false);
    expect(call('graphql.schema_is_valid', schema)).toBe(true);
    expect(call('graphql.schema_is_valid', 'type Query { x: Missing }')).toBe(false);
  });
  it('parses queries into gqlparser-shaped ASTs', () => {
    const q = call('graphql.parse_query', 'query Q($id: String!) { employeeByID(id: $id) { salary } }');
    expect(q).toEqual({
      Operations: [
        {
          Operation: 'query',
          Name: 'Q',
          VariableDefinitions: [{ Variable: 'id', Type: { NamedType: 'String', NonNull: true } }],
          SelectionSet: [
            {
              Alias: 'employeeByID',
              Name: 'employeeByID',
              Arguments: [{ Name: 'id', Value: { Raw: 'id', Kind: 0 } }],
              SelectionSet: [{ Alias: 'salary', Name: 'salary' }],
            },
          ],
        },
      ],
    });
    expect(() => call('graphql.parse_query', '{ broken')).toThrow(/Syntax Error/);
    expect(() => call('graphql.parse_schema', 'type Query {')).toThrow(/Syntax Error/);
  });
  it('parse, parse_and_verify and parse_schema', () => {
    const [q, s] = call('graphql.parse', '{ employeeByID(id: "a") { id } }', schema) as Record<string, unknown>[];
    expect((q!.Operations as unknown[]).length).toBe(1);
    expect((s!.Definitions as Record<string, unknown>[]).map((d) => d.Name)).toEqual(['Employee', 'Query']);
    expect(() => call('graphql.parse', '{ nope }', schema)).toThrow(/Cannot query field "nope"/);
    expect(call('graphql.parse_and_verify', '{ nope }', schema)).toEqual([false, {}, {}]);
    expect((call('graphql.parse_and_verify', '{ employeeByID(id: "a") { id } }', schema) as unknown[])[0]).toBe(true);
    const sd = call('graphql.parse_schema', schema) as Record<string, Record<string, unknown>[]>;
    expect(sd.Definitions![0]).toEqual({
      Kind: 'OBJECT',
      Description: '',
      Name: 'Employee',
      Fields: [
        { Description: '', Name: 'id', Type: { NamedType: 'String', NonNull: true } },
        { Description: '', Name: 'salary', Type: { NamedType: 'Int', NonNull: true } },
      ],
      BuiltIn: false,
    });
  });
});
