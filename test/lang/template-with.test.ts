// Template strings whose interpolations carry `with` modifiers, as OPA accepts them:
// $"Hello {input.name with input as {"name": "world"}}!"
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';
import { formatModule, parseModule } from '../../src/lang/index.js';

const SRC = `package t

greeting := $"Hello {input.name with input as {"name": "world"}}!"

count_of := $"n={count(input.xs) with input.xs as [1, 2, 3]}"

nested := $"{data.t.inner with input as {"v": 7}} and {input.v}"

inner := input.v
`;

describe('template strings with `with` in an interpolation', () => {
  it('parse, and the with applies to that interpolation only', () => {
    const rego = new Regolith().addModule('t.rego', SRC);
    expect(rego.decide('t/greeting', { name: 'ignored' })).toBe('Hello world!');
    expect(rego.decide('t/count_of', { xs: [] })).toBe('n=3');
    expect(rego.decide('t/nested', { v: 1 })).toBe('7 and 1');
  });

  it('fmt writes the with back inside the braces', () => {
    const out = formatModule(parseModule(SRC, { filename: 't.rego', regoVersion: 'v1' }));
    expect(out).toContain('greeting := $"Hello {input.name with input as {"name": "world"}}!"');
    expect(out).toContain('count_of := $"n={count(input.xs) with input.xs as [1, 2, 3]}"');
  });

  it('a with without a target or value is still a parse error', () => {
    expect(() => parseModule('package t\n\np := $"{input.x with}"\n', { filename: 'e.rego', regoVersion: 'v1' })).toThrow(/rego_parse_error|expected/);
  });
});
