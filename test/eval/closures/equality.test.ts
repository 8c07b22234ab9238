// `==` and `!=` against a constant scalar or between two variables are compiled to an
// identity test on slots (src/eval/closures/exprs.ts, equality). Generated comparisons of
// every kind of operand (scalars, big numbers read exactly from JSON text, composites,
// undefined) in every position (body, end of a nested body, under not, in an inlined
// function, mocked with `with`) must answer as the built-in called with its result as an
// argument (`equal(a, b, true)`), which never takes that path.
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../../src/index.js';
import { seededRandom } from '../../seeded-random.js';

const CONSTANTS = ['"*"', '"a"', '1', '1.0', '0', '-0', '12345678901234567890', '1e400', 'null', 'true', 'false', '[1]', '{"a": 1}'];
const INPUT_VALUES = ['"*"', '"a"', '1', '1.5', '0', '12345678901234567890', '1e400', 'null', 'true', 'false', '[1]', '{"a": 1}', '[]', '{}'];

function operand(r: () => number): string {
  const x = r();
  if (x < 0.4) return CONSTANTS[Math.floor(r() * CONSTANTS.length)]!;
  if (x < 0.7) return 'x';
  if (x < 0.85) return 'y';
  return 'input.a';
}

/** A comparison in two spellings: the one under test, and the built-in called with its result as an argument. */
function comparison(r: () => number): [string, string] {
  const [a, b] = [operand(r), operand(r)];
  const eq = r() < 0.6;
  return [`${a} ${eq ? '==' : '!='} ${b}`, `${eq ? 'equal' : 'neq'}(${a}, ${b}, true)`];
}

function rules(c1: string, c2: string, sfx: string): string {
  return `
body${sfx} if { x = input.a; y = input.b; ${c1} }
last${sfx} contains i if { some i; x = input.xs[i]; y = input.b; ${c1} }
negated${sfx} if { x = input.a; y = input.b; not ${c1} }
every_ok${sfx} if { y = input.b; every x in input.xs { is_array([x, y]); ${c2} } }
f${sfx}(x, y) if ${c1}
f${sfx}(x, y) if ${c2}
inlined${sfx} if f${sfx}(input.a, input.b)
mocked${sfx} if { x = input.a; y = input.b; ${c1} with equal as always with neq as always }
`;
}

const NAMES = ['body', 'last', 'negated', 'every_ok', 'inlined', 'mocked'];

function policy(r: () => number): string {
  const [c1, r1] = comparison(r);
  const [c2, r2] = comparison(r);
  return `package q

always(_, _) := true
${rules(c1, c2, '')}${rules(r1, r2, '_ref')}`;
}

describe('equality against constants and between variables', () => {
  it('answers as the built-in does, on generated comparisons and exact JSON inputs', () => {
    const r = seededRandom(3030);
    // values drawn from the constants half the time, so that comparisons hold often
    const pick = () => {
      const from = r() < 0.5 ? CONSTANTS : INPUT_VALUES;
      return from[Math.floor(r() * from.length)]!;
    };
    for (let p = 0; p < 60; p++) {
      const text = policy(r);
      const pq = new Regolith().addModule('q.rego', text).prepare('data.q');
      for (let i = 0; i < 10; i++) {
        const fields = [`"xs": [${pick()}, ${pick()}]`];
        if (r() < 0.9) fields.push(`"a": ${pick()}`);
        if (r() < 0.9) fields.push(`"b": ${pick()}`);
        const inputText = `{${fields.join(', ')}}`;
        const doc = pq.evaluate({ inputText })[0]!.expressions[0]!.value as Record<string, unknown>;
        for (const n of NAMES) expect({ text, inputText, n, value: doc[n] }).toEqual({ text, inputText, n, value: doc[`${n}_ref`] });
      }
    }
  });

  it('gives the expected answers', () => {
    const at = (text: string, inputText: string) => new Regolith().addModule('q.rego', `package q\n${text}`).prepare('data.q.p').evaluate({ inputText })[0]?.expressions[0]?.value;
    expect(at('p if input.a == "*"', '{"a": "*"}')).toBe(true);
    expect(at('p if input.a == 1', '{"a": 1.0}')).toBe(true);
    expect(at('p if input.a == 12345678901234567890', '{"a": 12345678901234567890}')).toBe(true);
    expect(at('p if input.a == 12345678901234567890', '{"a": 12345678901234567891}')).toBeUndefined();
    expect(at('p if input.a != 1', '{"a": 1}')).toBeUndefined();
    expect(at('p if input.a != 1', '{}')).toBeUndefined();
    expect(at('p if input.a != 1', '{"a": "1"}')).toBe(true);
    expect(at('p if { x := input.a; y := input.b; x == y }', '{"a": [1, {"b": 2}], "b": [1, {"b": 2}]}')).toBe(true);
    expect(at('p if { x := input.a; y := input.b; x != y }', '{"a": 1e400, "b": 1e400}')).toBeUndefined();
  });
});
