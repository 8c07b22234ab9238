// Small boolean functions are inlined at their call sites (src/eval/closures/inline.ts). The
// answers must be those of an ordinary call: compared here with traced runs, which never
// inline, over inputs that make the calls hold, fail and be undefined.
import { describe, expect, it } from 'vitest';
import { BufferTracer, Regolith } from '../../../src/index.js';
import { seededRandom } from '../../seeded-random.js';

const POLICY = `package t

seg(p, _) if p == "*"
seg(p, s) if {
	p == "{t}"
	s == input.t
}
seg(p, s) if p == s

pm(pattern, path) if {
	count(pattern) == count(path)
	every i, x in pattern {
		seg(x, path[i])
	}
}

match if pm(input.pattern, input.path)

# arguments that are patterns, constants or repeated variables
pair([a, b]) if a == b
konst("x") if true
same(x, x) if true
some_big(xs) if {
	some x in xs
	x > 2
}

pairs if pair(input.pair)
konsts if konst(input.k)
sames if same(input.a, input.b)
bigs if some_big(input.xs)

# a local variable of the function must not be the caller's variable of the same name
shifted(x) if {
	y := x + 1
	y > 2
}
keeps_y if {
	y := 10
	shifted(input.n)
	y == 10
}

# a call that is not inlined: a default, an else, a with
dflt(x) if x == 1
default dflt(_) := false
els(x) if x == 1
else := false
withs(x) if {
	x == 1 with input as {}
}
not_inlined if {
	dflt(input.n)
	els(input.n)
	withs(input.n)
}

# the function is undefined for arguments it cannot handle (a built-in error)
num_ok(s) if to_number(s) > 1
nums if num_ok(input.s)

# inlined calls inside a comprehension and under negation
matching := [r | some r in input.routes; pm(r, input.path)]
no_match if not pm(input.pattern, input.path)

# the call under with: the inlined body reads the replaced input
with_input if seg("{t}", "zeta") with input.t as "zeta"

mock_true(_, _) := true
mocked if pm(input.pattern, input.path) with seg as mock_true
count_mock(_) := 1
counted if pm(input.pattern, input.path) with count as count_mock
`;

const QUERIES = ['match', 'pairs', 'konsts', 'sames', 'bigs', 'keeps_y', 'not_inlined', 'nums', 'matching', 'no_match', 'with_input', 'mocked', 'counted'];

const INPUTS: Record<string, unknown>[] = [
  { pattern: ['api', '{t}', '*'], path: ['api', 'acme', 'x'], t: 'acme' },
  { pattern: ['api', '{t}', '*'], path: ['api', 'other', 'x'], t: 'acme' },
  { pattern: ['api', '{t}'], path: ['api', 'acme', 'x'], t: 'acme' },
  { pattern: ['api', '{t}'], path: ['api', '{t}'] },
  { pattern: ['a', 'b'], path: ['a', 'c'] },
  { pattern: 'abc', path: ['a'] },
  { pattern: ['a'] },
  { pair: [1, 1], k: 'x', a: 1, b: 1, xs: [1, 3], n: 2, s: '5', routes: [['a', '*'], ['*'], ['a', 'b']], path: ['a', 'b'] },
  { pair: [1, 2], k: 'y', a: 1, b: 2, xs: [1, 2], n: 1, s: 'x', routes: [['b', '*']], path: ['a', 'b'] },
  { pair: [1], k: 1, a: [1], b: [1], xs: 'no', n: 'str', s: 1 },
  {},
];

function engine(): Regolith {
  return new Regolith().addModule('t.rego', POLICY);
}

describe('inlined function calls', () => {
  it('give the answers of ordinary calls', () => {
    const r = engine();
    for (const q of QUERIES) {
      const pq = r.prepare(`data.t.${q}`);
      for (const input of INPUTS) {
        const plain = pq.evaluate({ input });
        const traced = pq.evaluate({ input, tracer: new BufferTracer() });
        expect({ q, input, result: plain }).toEqual({ q, input, result: traced });
      }
    }
  });

  it('gives the expected answers', () => {
    const r = engine();
    const at = (q: string, input: unknown) => r.prepare(`data.t.${q}`).evaluate({ input })[0]?.expressions[0]?.value;
    expect(at('match', INPUTS[0])).toBe(true);
    expect(at('match', INPUTS[1])).toBeUndefined();
    expect(at('match', INPUTS[3])).toBe(true);
    expect(at('no_match', INPUTS[1])).toBe(true);
    expect(at('keeps_y', { n: 2 })).toBe(true);
    expect(at('keeps_y', { n: 1 })).toBeUndefined();
    expect(at('pairs', { pair: [2, 2] })).toBe(true);
    expect(at('sames', { a: { x: [1] }, b: { x: [1] } })).toBe(true);
    expect(at('nums', { s: 'nope' })).toBeUndefined();
    expect(at('matching', INPUTS[7])).toEqual([['a', '*'], ['a', 'b']]);
    expect(at('with_input', INPUTS[0])).toBe(true);
    expect(at('mocked', INPUTS[1])).toBe(true);
    expect(at('counted', { pattern: ['x'], path: ['y', 'z'] })).toBeUndefined();
    expect(at('counted', { pattern: ['x'], path: ['x', 'z'] })).toBe(true);
  });

  it('inlines the small boolean functions only', () => {
    const r = engine();
    r.prepare('data.t').evaluate({ input: INPUTS[0] });
    const node = (name: string) => r.compile().root.find(['t', name])!;
    for (const f of ['seg', 'pm', 'pair', 'konst', 'same', 'some_big', 'shifted', 'num_ok']) expect([f, node(f).cache['inline']]).toEqual([f, true]);
    for (const f of ['dflt', 'els', 'withs']) expect([f, node(f).cache['inline']]).toEqual([f, false]);
  });

  it('is not done when the policy prints (a memoised call would print once)', () => {
    const printed: string[] = [];
    const r = new Regolith({ print: (m) => printed.push(m) }).addModule(
      'p.rego',
      `package p
f(x) if {
	print("f", x)
	x > 0
}
r if {
	some i in [1, 2]
	f(1)
}`,
    );
    expect(r.prepare('data.p.r').evaluate()[0]?.expressions[0]?.value).toBe(true);
    expect(printed).toEqual(['f 1']);
  });

  it('give the answers of ordinary calls on generated functions, arguments and inputs', () => {
    // the callers pass their own variables (loop variables, one variable twice, a variable
    // named as the function's parameter), which the inlined rules read from the callers'
    // slots; traced runs make ordinary calls
    const BODIES = ['a == b', 'a == "x"', 'b == input.t', 'count(a) == count(b)', 'every i, x in a { x == b[i] }', 'some x in a; x == b', 'y := a; y == b', 'a[b] == 1', 'not a == b', 'a != b; b != 1'];
    const VALUES = ['"x"', '"k"', '1', '[1]', '["x"]', '{"a": 1}', '[]', '"y"', '{"x": 1}'];
    const CALLERS = `
c1 contains [x, y] if { some x in input.xs; some y in input.ys; f(x, y) }
c2 contains x if { some x in input.xs; f(x, x) }
c3 contains x if { some x in input.xs; f(x, input.t) }
c4 contains x if { some x in input.xs; not f(x, input.t) }
c5 contains [x, a] if { some x in input.xs; a := x; f(a, input.t); a == x }
g(z) if f(z, input.t)
c6 contains x if { some x in input.xs; g(x) }
c7 contains x if { some x in input.xs; f(x, input.t) with input.t as "x" }
c8 := [x | some x in input.xs; some y in input.ys; f(y, x)]
`;
    const r = seededRandom(515);
    const pick = (xs: string[]) => xs[Math.floor(r() * xs.length)]!;
    let inlined = 0;
    for (let p = 0; p < 30; p++) {
      const rules = [`f(a, b) if { ${pick(BODIES)} }`, `f(a, b) if { ${pick(BODIES)} }`];
      if (r() < 0.5) rules.push(`f("k", b) if b == ${pick(VALUES)}`);
      const text = `package g\n${rules.join('\n')}\n${CALLERS}`;
      const reg = new Regolith().addModule('g.rego', text);
      const pq = reg.prepare('data.g');
      for (let i = 0; i < 6; i++) {
        const list = () => `[${Array.from({ length: Math.floor(r() * 4) }, () => pick(VALUES)).join(', ')}]`;
        const inputText = `{"xs": ${list()}, "ys": ${list()}, "t": ${pick(VALUES)}}`;
        const plain = pq.evaluate({ inputText });
        const traced = pq.evaluate({ inputText, tracer: new BufferTracer() });
        expect({ text, inputText, result: plain }).toEqual({ text, inputText, result: traced });
      }
      if (reg.compile().root.find(['g', 'f'])!.cache['inline'] === true) inlined++;
    }
    expect(inlined).toBeGreaterThan(20);
  });
});
