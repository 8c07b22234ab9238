// `some x in C; x.f == v` over a ground collection iterates a group computed at plan time
// (src/eval/closures/ground-index.ts). The answers must be those of the plain iteration:
// compared here with traced runs, which never index, and with answers written by hand.
import { describe, expect, it } from 'vitest';
import { BufferTracer, Regolith } from '../../../src/index.js';

const POLICY = `package t

routes := [
	{"m": "GET", "p": 1, "first": true},
	{"m": "POST", "p": 2},
	{"m": "GET", "p": 3},
	{"p": 4},
	{"m": 1, "p": 5},
	{"m": null, "p": 6},
	{"m": true, "p": 7},
	{"m": "GET", "p": 8, "first": true},
	{"m": "PUT", "p": 9},
	"not an object",
	{"m": 1.0, "p": 10},
]

hit contains r.p if {
	some r in routes
	r.m == input.m
}

hit_flipped contains r.p if {
	some r in routes
	input.m == r.m
	r.p > 2
}

ordered := [r.p | some r in routes; r.m == input.m]

any if {
	some r in routes
	r.m == input.m
}

# two solutions with different values: a conflict, as without the index
first := r.p if {
	some r in routes
	r.m == input.m
	r.first
}

# a bound variable as the other side
by_var contains r.p if {
	m := input.m
	some r in routes
	r.m == m
}

# a constant collection written in place
literal := [r.p | some r in [{"m": "a", "p": 1}, {"m": "b", "p": 2}, {"m": "a", "p": 3}, {"m": "c", "p": 4}, {"m": "a", "p": 5}, {"m": "d", "p": 6}, {"m": "e", "p": 7}, {"m": "a", "p": 8}]; r.m == input.m]

# the collection replaced by with: the plain iteration
replaced := x if {
	x := ordered with data.t.routes as [{"m": "GET", "p": 99}, {"m": "POST", "p": 98}]
}

replaced_input := x if {
	x := ordered with input.m as "POST"
}

# equal mocked: the plain iteration calls the mock
always(_, _) := true
mocked := x if {
	x := ordered with equal as always
}
`;

const INPUTS: unknown[] = [{ m: 'GET' }, { m: 'POST' }, { m: 1 }, { m: null }, { m: true }, { m: 'DELETE' }, { m: ['GET'] }, {}, { m: 'a' }, { m: 1.5 }];
const QUERIES = ['hit', 'hit_flipped', 'ordered', 'any', 'first', 'by_var', 'literal', 'replaced', 'replaced_input', 'mocked'];

// loaded after the library (a direct first import of a plan module would start an import cycle mid-way)
const { groundIndexes } = await import('../../../src/eval/closures/ground-index.js');

describe('indexed iteration over ground collections', () => {
  it('gives the answers of the plain iteration, errors included', () => {
    const r = new Regolith().addModule('t.rego', POLICY);
    const run = (q: string, input: unknown, traced: boolean) => {
      try {
        return r.prepare(`data.t.${q}`).evaluate({ input, tracer: traced ? new BufferTracer() : undefined })[0]?.expressions[0]?.value;
      } catch (e) {
        return `error: ${(e as Error).message}`;
      }
    };
    for (const q of QUERIES) for (const input of INPUTS) expect({ q, input, v: run(q, input, false) }).toEqual({ q, input, v: run(q, input, true) });
  });

  it('gives the expected answers and builds an index per site', () => {
    const before = groundIndexes.built;
    const r = new Regolith().addModule('t.rego', POLICY);
    const at = (q: string, input: unknown) => r.prepare(`data.t.${q}`).evaluate({ input })[0]?.expressions[0]?.value;
    expect(at('hit', { m: 'GET' })).toEqual([1, 3, 8]);
    expect(at('hit', { m: 1 })).toEqual([5, 10]);
    expect(at('hit', { m: null })).toEqual([6]);
    expect(at('hit', { m: 'HEAD' })).toEqual([]);
    expect(at('hit', { m: ['GET'] })).toEqual([]);
    expect(at('hit_flipped', { m: 'GET' })).toEqual([3, 8]);
    expect(at('ordered', { m: 'GET' })).toEqual([1, 3, 8]);
    expect(at('any', { m: 'PUT' })).toBe(true);
    expect(at('any', {})).toBeUndefined();
    expect(at('by_var', { m: 'POST' })).toEqual([2]);
    expect(at('literal', { m: 'a' })).toEqual([1, 3, 5, 8]);
    expect(at('replaced', { m: 'GET' })).toEqual([99]);
    expect(at('replaced_input', { m: 'GET' })).toEqual([2]);
    expect(at('mocked', { m: 'GET' })).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 10]); // {"p": 4} has no m
    expect(() => at('first', { m: 'GET' })).toThrow(/complete rules must not produce multiple outputs/);
    expect(at('first', { m: 'POST' })).toBeUndefined();
    // hit, hit_flipped, ordered, any, first, by_var, literal
    expect(groundIndexes.built - before).toBe(7);
  });

  it('is not built over collections that are not ground or have composite fields', () => {
    const before = groundIndexes.built;
    const r = new Regolith().addModule(
      'u.rego',
      `package u
xs := [{"m": [1]}, {"m": "a"}, {"m": "b"}, {"m": "c"}, {"m": "d"}, {"m": "e"}, {"m": "f"}, {"m": "g"}]
computed := [{"m": x} | some x in numbers.range(1, 10)]
a := [r | some r in xs; r.m == input.m]
b := [r | some r in input.xs; r.m == input.m]
c := [r | some r in computed; r.m == input.m]
d := [r | some r in xs; r.m == data.u.a]
`,
    );
    const at = (q: string, input: unknown) => r.prepare(`data.u.${q}`).evaluate({ input })[0]?.expressions[0]?.value;
    expect(at('a', { m: [1] })).toEqual([{ m: [1] }]);
    expect(at('b', { m: 2, xs: [{ m: 2 }, { m: 3 }] })).toEqual([{ m: 2 }]);
    expect(at('c', { m: 2 })).toEqual([{ m: 2 }]);
    expect(at('d', { m: 'a' })).toEqual([]);
    expect(groundIndexes.built - before).toBe(0);
  });
});
