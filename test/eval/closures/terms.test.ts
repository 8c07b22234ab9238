// A ref whose keys are constants or variables bound before it (`path[i]`, `x[k].a`,
// `input[k][0]`) is read from the slots by one closure (src/eval/closures/terms.ts,
// slotPath). Generated collections and keys of every kind (array indexes that are
// negative, fractional, big or out of range; strings, null, composites; sets and objects
// with non-string keys; undefined) must give what the general path gives: the same ref with
// each key written `[k][0]`, which is no variable and so never takes that path.
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../../src/index.js';
import { seededRandom } from '../../seeded-random.js';

const KEYS = ['0', '1', '2', '-1', '1.5', '1.0', '12345678901234567890', '"a"', '"b"', '"0"', 'null', 'true', '[1]', '{"a": 1}'];
const COLLECTIONS = ['[10, [20, 21], {"a": 30}]', '{"a": [1, 2], "b": {"a": 3}, "0": 4}', '{1, "a", [1]}', '{1: "one", [1]: "arr", "a": {"a": 5}}', '"str"', '7', 'null', '[]'];

type Draw = () => number;
const pick = <T,>(r: Draw, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** A ref under test and its spelling through the general path. */
function ref(r: Draw): [string, string] {
  const head = pick(r, ['c', 'input.c', 'input']);
  const keys: [string, string][] = [];
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const x = r();
    if (x < 0.45) keys.push(['[k]', '[[k][0]]']);
    else if (x < 0.75) keys.push(['[j]', '[[j][0]]']);
    else if (x < 0.9) keys.push(['.a', '.a']);
    else keys.push(['[0]', '[0]']);
  }
  const [h, general] = head === 'input' ? ['input', 'input'] : head === 'c' ? ['c', 'c'] : ['input.c', 'input.c'];
  return [h + keys.map((k) => k[0]).join(''), general + keys.map((k) => k[1]).join('')];
}

function policy(r: Draw): string {
  const [a, b] = ref(r);
  const [c, d] = ref(r);
  return `package t
vals := [v | some k in input.ks; some j in input.ks; c := input.c; v := [k, j, ${a}]]
vals_ref := [v | some k in input.ks; some j in input.ks; c := input.c; v := [k, j, ${b}]]
hit if { k := input.ks[0]; j := input.ks[1]; c := input.c; ${c} == input.want }
hit_ref if { k := input.ks[0]; j := input.ks[1]; c := input.c; ${d} == input.want }
`;
}

describe('refs read through bound variables', () => {
  it('give what the general path gives, on generated refs, collections and keys', () => {
    const r = seededRandom(4242);
    let defined = 0;
    for (let p = 0; p < 40; p++) {
      const text = policy(r);
      const pq = new Regolith().addModule('t.rego', text).prepare('data.t');
      for (let i = 0; i < 8; i++) {
        const ks = [pick(r, KEYS), pick(r, KEYS), pick(r, KEYS)];
        const fields = [`"ks": [${ks.join(', ')}]`, `"want": ${pick(r, ['10', '2', '3', '"one"', '5', '[1]'])}`];
        // the collection as JSON where it has one (sets and non-string keys exist only in policies)
        const c = pick(r, COLLECTIONS);
        if (!c.startsWith('{1')) fields.push(`"c": ${c}`);
        // also read as input keys: input[k] over a document with keys and an array
        fields.push(`"a": {"a": [7]}`, `"0": "zero"`);
        const inputText = `{${fields.join(', ')}}`;
        const doc = pq.evaluate({ inputText })[0]!.expressions[0]!.value as Record<string, unknown>;
        expect({ text, inputText, vals: doc['vals'], hit: doc['hit'] }).toEqual({ text, inputText, vals: doc['vals_ref'], hit: doc['hit_ref'] });
        defined += (doc['vals'] as unknown[]).filter((v) => (v as unknown[]).length === 3).length;
      }
    }
    expect(defined).toBeGreaterThan(50);
  });

  it('reads sets, objects with composite keys and arrays', () => {
    const r = new Regolith().addModule(
      't.rego',
      `package t
s := {1, "a", [1]}
o := {[1]: "arr", 1: "one"}
a := [10, [20, 21]]
got := [s[k], o[k], o[j], a[i], a[j][i]] if { k := [1]; j := 1; i := 0 }
none if { i := 1.5; a[i] }
`,
    );
    expect(r.decide('data.t.got')).toEqual([[1], 'arr', 'one', 10, 20]);
    expect(r.decide('data.t.none')).toBeUndefined();
  });
});
