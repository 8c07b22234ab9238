// evaluate() builds each result once in the library's shape (QueryPlan.runPlain) instead of
// converting the Rego values of evaluateRaw() after the run. Generated queries over values
// of every kind (sets, objects with non-string keys, big numbers, null, false, undefined)
// must give exactly what converting the raw results gives.
import { describe, expect, it } from 'vitest';
import { BufferTracer, Regolith } from '../../src/index.js';
import { toJS } from '../../src/value/index.js';
import type { RawResult } from '../../src/engine/index.js';
import { seededRandom } from '../seeded-random.js';

const POLICY = `package p
s contains x if { some x in input.xs }
o := {k: v | some k, v in input.m}
ko := {[1]: "a", {"b": 2}: 3}
big := 12345678901234567890
huge := 1e400
n := null
f := false
arr := [s, {1, 2}, big]
`;

// terms to combine into queries: with and without bindings, several expressions, iteration
const TERMS = ['data.p.s', 'data.p.o', 'data.p.ko', 'data.p.big', 'data.p.huge', 'data.p.n', 'data.p.f', 'data.p.arr', 'data.p.missing', 'input.xs', '1 + 1', '{1, "a"}', 'input.xs[_]', '1 == 2'];

function convert(raw: RawResult[]): unknown {
  return raw.map((r) => {
    const bindings: Record<string, unknown> = {};
    for (const [k, v] of r.bindings) bindings[k] = toJS(v);
    return { expressions: r.expressions.map((e) => ({ value: toJS(e.value), text: e.text, location: e.location })), bindings };
  });
}

function query(r: () => number): string {
  const pick = () => TERMS[Math.floor(r() * TERMS.length)]!;
  const n = 1 + Math.floor(r() * 3);
  const exprs: string[] = [];
  for (let i = 0; i < n; i++) exprs.push(r() < 0.5 ? `x${i} := ${pick()}` : pick());
  return exprs.join('; ');
}

describe('plain results', () => {
  it('equal the raw results converted, on generated queries', () => {
    const r = seededRandom(7);
    const reg = new Regolith().addModule('p.rego', POLICY);
    let compared = 0;
    for (let i = 0; i < 150; i++) {
      const q = query(r);
      const pq = reg.prepare(q);
      const input = { xs: [1, 'a', 12345678901234567890n.toString(), { k: [] }].slice(0, Math.floor(r() * 5)), m: { a: 1, b: [2] } };
      for (const tracer of [undefined, new BufferTracer()]) {
        const plain = pq.evaluate({ input, tracer });
        const raw = convert(pq.evaluateRaw({ input, tracer }));
        expect({ q, plain }).toEqual({ q, plain: raw });
        compared += plain.length;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('converts sets, non-string keys and big numbers as toJS does', () => {
    const reg = new Regolith().addModule('p.rego', POLICY);
    const res = reg.prepare('x := data.p.ko; data.p.s; y := data.p.huge').evaluate({ input: { xs: [2, 1] } });
    expect(res).toEqual([
      {
        expressions: [
          { value: true, text: 'x := data.p.ko', location: { row: 1, col: 1 } },
          { value: [1, 2], text: 'data.p.s', location: { row: 1, col: 17 } },
          { value: true, text: 'y := data.p.huge', location: { row: 1, col: 27 } },
        ],
        bindings: { x: { '[1]': 'a', '{"b":2}': 3 }, y: '1e400' },
      },
    ]);
    expect(reg.prepare('data.p.n').evaluate()[0]!.expressions[0]!.value).toBeNull();
  });
});
