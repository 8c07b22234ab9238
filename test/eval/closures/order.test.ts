// Where iteration order is observable it stays sorted (OPA's order), even though set
// rules, set/object comprehensions, complete rules and functions iterate sets and objects
// in insertion order internally (src/eval/closures/order.ts).
import { describe, expect, it } from 'vitest';
import { BufferTracer, Regolith } from '../../../src/index.js';

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

// Set rules and set comprehensions add their members unchecked (src/eval/value/set.ts):
// repeats are removed the first time the set is counted, compared, hashed, sorted or
// searched, and order-free iteration may see a repeat without any answer changing.
describe('sets built from repeated solutions', () => {
  const SETS = `package s

grants contains g if {
	some r in input.roles
	some g in input.grants[r]
}

names := {g.name | some g in grants}
n := count(grants)
same := grants == {g | some r in input.roles; some g in input.grants[r]}
listed := [g.name | some g in grants]
allowed if {
	some g in grants
	g.name == input.want
}
per_name := {name: true | some g in grants; name := g.name}
all_read if every g in grants { g.read }
has_b if {"name": "b", "read": true} in grants
nested := {{"x": g} | some g in grants}
`;
  const a = { name: 'a', read: true };
  const b = { name: 'b', read: true };
  const input = { roles: ['r1', 'r2', 'r3'], grants: { r1: [a, b], r2: [b, { ...a }], r3: [{ ...b }] }, want: 'b' };
  const r = new Regolith().addModule('s.rego', SETS);
  const at = (q: string) => r.prepare(`data.s.${q}`).evaluate({ input })[0]?.expressions[0]?.value;

  it('are sets: counted, compared, listed and returned without repeats', () => {
    expect(at('grants')).toEqual([a, b]);
    expect(at('n')).toBe(2);
    expect(at('same')).toBe(true);
    expect(at('listed')).toEqual(['a', 'b']);
    expect(at('names')).toEqual(['a', 'b']);
    expect(at('nested')).toEqual([{ x: a }, { x: b }]);
  });

  it('give the same answers to order-free consumers', () => {
    expect(at('allowed')).toBe(true);
    expect(at('per_name')).toEqual({ a: true, b: true });
    expect(at('all_read')).toBe(true);
    expect(at('has_b')).toBe(true);
    // and again under a tracer, which iterates sorted sets
    const traced = (q: string) => r.prepare(`data.s.${q}`).evaluate({ input, tracer: new BufferTracer() })[0]?.expressions[0]?.value;
    for (const q of ['allowed', 'per_name', 'all_read', 'has_b', 'n', 'grants']) expect(traced(q)).toEqual(at(q));
  });

  it('keep a loop over the members going when its body makes the set drop its repeats', () => {
    // the membership test at "b" removes the repeated "a" before it; the loop must still reach "c"
    const s = new Regolith().addModule('l.rego', 'package l\ns contains x if some x in input.xs\nseen := {x | some x in s; x != "a"; x in s}\n');
    const v = s.prepare('data.l.seen').evaluate({ input: { xs: ['a', 'a', 'b', 'c'] } })[0]?.expressions[0]?.value;
    expect(v).toEqual(['b', 'c']);
  });
});
