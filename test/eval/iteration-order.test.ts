// Where iteration order is observable it stays sorted (OPA's order), even though set
// rules, set/object comprehensions, complete rules and functions iterate sets and objects
// in insertion order internally (src/eval/plan/order.ts).
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';

const POLICY = `package o

items contains x if some x in input.xs

objs contains {"k": x} if some x in input.xs

# an array collects in iteration order: sorted
arr := [x | some x in items]

arr_objs := [o.k | some o in objs]

# a set and a boolean do not depend on the order
doubled := {y | some x in items; y := x * 2}

any_big if {
	some x in items
	x > 2
}

all_pos if every x in items { x > 0 }

keys := [k | some k, _ in input.obj]

first_big := x if {
	some x in items
	x > 2
	x < 4
}
`;

function engine(extra = ''): Regolith {
  return new Regolith({ print: () => {} }).addModule('o.rego', POLICY + extra);
}

const input = { xs: [5, 3, 1, 4, 2], obj: { zeta: 1, alpha: 2, mid: 3 } };

describe('iteration order', () => {
  it('array comprehensions over sets and objects see sorted order', () => {
    const r = engine();
    const at = (q: string) => r.prepare(q).evaluate({ input })[0]?.expressions[0]?.value;
    expect(at('data.o.arr')).toEqual([1, 2, 3, 4, 5]);
    expect(at('data.o.arr_objs')).toEqual([1, 2, 3, 4, 5]);
    expect(at('data.o.keys')).toEqual(['alpha', 'mid', 'zeta']);
  });

  it('sets, booleans and complete values do not depend on it', () => {
    const r = engine();
    const at = (q: string) => r.prepare(q).evaluate({ input })[0]?.expressions[0]?.value;
    expect(at('data.o.doubled')).toEqual([2, 4, 6, 8, 10]);
    expect(at('data.o.any_big')).toBe(true);
    expect(at('data.o.all_pos')).toBe(true);
    expect(at('data.o.first_big')).toBe(3);
  });

  it('query results come in sorted order', () => {
    const r = engine();
    const xs = r.prepare('x := data.o.items[_]').evaluate({ input }).map((b) => b.bindings['x']);
    expect(xs).toEqual([1, 2, 3, 4, 5]);
  });

  it('a policy that prints keeps sorted order everywhere', () => {
    const printed: string[] = [];
    const r = new Regolith({ print: (m) => printed.push(m) }).addModule(
      'o.rego',
      POLICY + '\nshown contains x if {\n\tsome x in items\n\tprint(x)\n}\n',
    );
    r.prepare('data.o.shown').evaluate({ input });
    expect(printed).toEqual(['1', '2', '3', '4', '5']);
  });

  it('strict built-in errors keep sorted order', () => {
    const r = engine();
    const v = r.prepare('data.o.any_big').evaluate({ input, strictBuiltinErrors: true })[0]?.expressions[0]?.value;
    expect(v).toBe(true);
  });
});
