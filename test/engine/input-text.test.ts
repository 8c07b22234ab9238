// An input given as JSON text: decideJSON and EvaluateOptions.inputText read it with the
// exact reader (big numbers keep their digits), and malformed text is a clear error.
import { describe, expect, it } from 'vitest';
import { EngineError, Regolith } from '../../src/index.js';

const policy = `package authz
exact if input.n == 12345678901234567891
allow if input.user == "alice"
`;

function engine(): Regolith {
  return new Regolith().addModule('authz.rego', policy);
}

describe('input from JSON text', () => {
  const body = '{"user": "alice", "n": 12345678901234567891}';

  it('decideJSON evaluates from the text, numbers exact (JSON.parse would round them)', () => {
    const r = engine();
    expect(r.decideJSON('authz/allow', body)).toBe(true);
    expect(r.decideJSON('authz/exact', body)).toBe(true);
    expect(r.decide('authz/exact', JSON.parse(body))).toBeUndefined();
  });

  it('EvaluateOptions.inputText and PartialQueryOptions.inputText take the same text', () => {
    const r = engine();
    const q = r.prepare('data.authz.exact');
    expect(q.evaluate({ inputText: body })[0]!.expressions[0]!.value).toBe(true);
    expect(q.partial({ inputText: body, unknowns: ['data.nothing'] }).queries.length).toBe(1);
  });

  it('blank text is no input, as an empty request body', () => {
    expect(engine().decideJSON('authz/allow', '  \n')).toBeUndefined();
  });

  it('malformed text throws EngineError bad_request naming the problem', () => {
    let err: unknown;
    try {
      engine().decideJSON('authz/allow', '{"user": "alice",}');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).kind).toBe('bad_request');
    expect((err as EngineError).message).toMatch(/^malformed input document: /);
    expect((err as EngineError).errors[0]!.code).toBe('invalid_parameter');
  });

  it('input and inputText together are refused', () => {
    expect(() => engine().prepare('data.authz.allow').evaluate({ input: {}, inputText: '{}' })).toThrow(/input and inputText are exclusive/);
  });
});
