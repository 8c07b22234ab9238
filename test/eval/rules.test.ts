// An untraced evaluation of a complete document with fewer rules than are indexed runs
// runners kept on its node (src/eval/rules.ts, completePlain). Generated documents (several
// rules, else chains, defaults, the same constant or different values, conflicts, undefined,
// rules reading other rules) must answer as a traced run, which takes the general path.
import { describe, expect, it } from 'vitest';
import { BufferTracer, Regolith } from '../../src/index.js';
import { seededRandom } from '../seeded-random.js';

type Draw = () => number;
const pick = <T,>(r: Draw, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const CONDITIONS = ['input.a == 1', 'input.b', 'input.a > 0', 'not input.b', 'b', 'input.a == input.c', 'some x in input.xs; x == 2', 'true'];
const VALUES = ['true', '1', '2', '"x"', 'input.a', '[input.a]', 'false'];

function rule(r: Draw, name: string, constant: boolean): string {
  const value = constant ? 'true' : pick(r, VALUES);
  let text = `${name} := ${value} if { ${pick(r, CONDITIONS)} }`;
  while (r() < 0.3) text += ` else := ${constant ? 'true' : pick(r, VALUES)} if { ${pick(r, CONDITIONS)} }`;
  return text;
}

function policy(r: Draw): string {
  const lines = ['package d'];
  for (const name of ['a', 'b', 'c']) {
    // the same constant everywhere half the time (early exit), else values that may
    // conflict; b, which the others may read, never conflicts (an early exit skips the
    // rules after the first that holds, and with them an error a traced run would meet)
    const constant = name === 'b' || r() < 0.5;
    const n = 1 + Math.floor(r() * 4);
    for (let i = 0; i < n; i++) lines.push(rule(r, name, constant).replace(/\bb\b(?=[^:]*\})/g, name === 'b' ? 'input.b' : 'b'));
    if (r() < 0.5) lines.push(`default ${name} := ${pick(r, ['false', '0', '"none"'])}`);
  }
  lines.push('d := [a, b, c]');
  return lines.join('\n');
}

function answer(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (e) {
    return { error: String(e) };
  }
}

describe('complete documents', () => {
  it('answer as traced runs do, on generated rules and inputs', () => {
    const r = seededRandom(96);
    let values = 0;
    let errors = 0;
    for (let p = 0; p < 60; p++) {
      const text = policy(r);
      const reg = new Regolith().addModule('d.rego', text);
      const prepared = ['data.d.a', 'data.d.b', 'data.d.d', 'data.d'].map((q) => [q, reg.prepare(q)] as const);
      for (let i = 0; i < 5; i++) {
        const input = { a: pick(r, [0, 1, 2]), b: r() < 0.5, c: pick(r, [1, 2]), xs: [pick(r, [1, 2, 3])] };
        for (const [q, pq] of prepared) {
          const plain = answer(() => pq.evaluate({ input }));
          const traced = answer(() => pq.evaluate({ input, tracer: new BufferTracer() }));
          expect({ text, q, input, answer: plain }).toEqual({ text, q, input, answer: traced });
          if ('error' in (plain as object)) errors++;
          else values++;
        }
      }
    }
    // conflicts and values both met
    expect(errors).toBeGreaterThan(20);
    expect(values).toBeGreaterThan(200);
  });
});
