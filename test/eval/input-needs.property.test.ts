// Reading input text only where a policy can look (eval/input-needs.ts + value/json-sparse.ts)
// must never be observable: for generated policies and generated JSON texts (duplicate
// keys, exact and exotic numbers, escapes, malformed text anywhere) the decision from
// `inputText` is exactly the decision from the whole document read first (JSON.parse's
// acceptance, the exact reader's numbers), or the same error class.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EngineError, Regolith } from '../../src/index.js';
import { JSONParseError, parseJSON } from '../../src/value/index.js';
import { inputNeeds } from '../../src/eval/input-needs.js';
import { newNeeds, parseJSONSparse } from '../../src/value/json-sparse.js';

const RUNS = Number(process.env.INPUT_NEEDS_RUNS ?? 120);
const TEXTS = 16;

const key = fc.constantFrom('a', 'b', 'c', '__proto__', 'x y', 'é');
const path = fc.array(fc.constantFrom('a', 'b', 'c', '__proto__'), { minLength: 1, maxLength: 3 }).map((ks) => ks.map((k) => (k === '__proto__' ? `["${k}"]` : `.${k}`)).join(''));
const field = fc.constantFrom('a', 'b', 'c');
const lit = fc.constantFrom('1', '"v"', 'true', 'null', '12345678901234567891', '0.1', '"a"');

/** One rule (or a rule and its helper), reading the input in one of the ways policies do. */
const rule = fc.tuple(fc.nat(15), path, path, field, lit).map(([kind, p, q, f, v]) => (i: number): string => {
  switch (kind) {
    case 0:
      return `r${i} := input${p}`;
    case 1:
      return `r${i} if input${p} == ${v}`;
    case 2:
      return `r${i} := count(input${p})`;
    case 3:
      return `r${i} contains x if { some x in input${p} }`;
    case 4:
      return `r${i} contains k if { some k, v in input${p}; v.${f} }`;
    case 5:
      return `r${i} := [y | y := input${p}[_].${f}]`;
    case 6:
      return `r${i} if { x := input${p}; x.${f} == ${v} }`;
    case 7:
      return `r${i} if { every v in input${p} { v.${f} != ${v} } }`;
    case 8:
      return `f${i}(x) := x.${f}\nr${i} := f${i}(input${p})`;
    case 9:
      return `r${i} := object.get(input, "${f}", 0)`;
    case 10:
      return `r${i} := input${p}[input${q}]`;
    case 11:
      return `r${i} contains rc.${f} if { rc := input${p}[_]; ${v} in rc.${f} }`;
    case 12:
      return `r${i} if { some rc in input${p}; rc${q} == ${v} }`;
    case 13:
      return `r${i} contains x if { some x in [input${p}, 1] }`;
    case 14:
      return `r${i} := {x | some x in object.keys(input${p})}`;
    default:
      return `r${i} := {k | input${p}[k]}`;
  }
});

const policy = fc.array(rule, { minLength: 1, maxLength: 4 }).map((rs) => ['package t', '', ...rs.map((r, i) => r(i))].join('\n'));

/** A JSON text; objects are lists of members, so keys may repeat. */
type J = { t: 'scalar'; text: string } | { t: 'array'; xs: J[] } | { t: 'object'; ms: [string, J][] };
const scalar = fc.constantFrom('1', '-0', '0.5', '1e400', '1e1000000001', '2E-0000000000007', '12345678901234567891', '"v"', '"a\\"b\\u00e9\\n"', 'true', 'false', 'null', '"x y"').map((text): J => ({ t: 'scalar', text }));
const json: fc.Arbitrary<J> = fc.letrec<{ v: J }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }).map((xs): J => ({ t: 'array', xs })),
    fc.array(fc.tuple(key, tie('v')), { maxLength: 4 }).map((ms): J => ({ t: 'object', ms })),
  ),
})).v;

function render(j: J, sp: string): string {
  if (j.t === 'scalar') return j.text;
  if (j.t === 'array') return '[' + sp + j.xs.map((x) => render(x, sp)).join(',' + sp) + sp + ']';
  return '{' + sp + j.ms.map(([k, v]) => JSON.stringify(k) + sp + ':' + render(v, sp)).join(',' + sp) + sp + '}';
}

/** The document, sometimes with one fault put somewhere in it. */
const text = fc
  .tuple(json, fc.constantFrom('', ' ', '\n  '), fc.nat(7), fc.nat(10_000), fc.constantFrom('}', ']', ',', ':', '"', '\\', '0', 'x', '\u0001', ' ', '\n', '\t'))
  .map(([j, sp, fault, at, ch]) => {
    // a top-level object, so that paths into it are read
    const t = render(j.t === 'object' ? j : { t: 'object', ms: [['a', j], ['b', j]] }, sp);
    const k = at % (t.length + 1);
    if (fault === 0) return t.slice(0, k) + t.slice(k + 1);
    if (fault === 1) return t.slice(0, k) + ch + t.slice(k);
    if (fault === 2) return t.slice(0, k);
    return t;
  });

type Outcome = { value: string } | { error: string };

function outcome(f: () => unknown): Outcome {
  try {
    return { value: JSON.stringify(f(), (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) };
  } catch (e) {
    if (e instanceof EngineError && e.kind === 'bad_request' && /^malformed input document: /.test(e.message)) return { error: 'malformed input' };
    if (e instanceof JSONParseError) return { error: 'malformed input' };
    return { error: (e as Error).message };
  }
}

describe('input text read where the policy looks', () => {
  it('gives what reading the whole document gives, for generated policies and texts', () => {
    fc.assert(
      fc.property(policy, fc.array(text, { minLength: TEXTS, maxLength: TEXTS }), (module, texts) => {
        const r = new Regolith().addModule('t.rego', module);
        const q = r.prepare('data.t');
        // undefined: the policy reads its input whole
        const needs = inputNeeds(r.compile().root, []) ?? { ...newNeeds(), all: true };
        for (const t of texts) {
          // the reference: JSON.parse decides what is malformed, the exact reader gives the value
          let whole: Outcome;
          let valid = true;
          try {
            JSON.parse(t);
          } catch {
            valid = false;
          }
          // blank text is no input (as an empty request body), before and after
          if (t.trim() === '') whole = outcome(() => q.evaluate({})[0]?.expressions[0]?.value);
          else if (!valid) whole = { error: 'malformed input' };
          else whole = outcome(() => q.evaluate({ input: parseJSON(t) })[0]?.expressions[0]?.value);
          // the library's text input (which reads short texts whole) and the sparse reader itself
          const fromText = outcome(() => q.evaluate({ inputText: t })[0]?.expressions[0]?.value);
          expect(fromText, `policy:\n${module}\ntext: ${t}`).toEqual(whole);
          const sparse = outcome(() => q.evaluate(t.trim() === '' ? {} : { input: parseJSONSparse(t, needs) })[0]?.expressions[0]?.value);
          expect(sparse, `policy:\n${module}\ntext: ${t}`).toEqual(whole);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('reads only part of the text when the policy reads part of the input', () => {
    const r = new Regolith().addModule('t.rego', 'package t\nn := count([1 | some rc in input.changes; "create" in rc.actions])');
    const q = r.prepare('data.t.n');
    const needs = inputNeeds(r.compile().root, [])!;
    const doc = '{"changes": [{"actions": ["create"], "before": {"big": [1, 2, 3]}}, {"actions": ["delete"]}], "other": {"x": 12345678901234567891}}';
    expect(parseJSONSparse(doc, needs)).toEqual({ changes: [{ actions: ['create'] }, { actions: ['delete'] }] });
    expect(q.evaluate({ inputText: doc })[0]!.expressions[0]!.value).toBe(1);
    // a fault in a part that is skipped is still an error
    expect(() => q.evaluate({ inputText: doc.replace('[1, 2, 3]', '[1, 2,]') })).toThrow(/malformed input document/);
    // so is a number the whole reader refuses (an exponent past 1e9), where a skip once let it through
    const pad = ' '.repeat(2000);
    for (const n of ['1e1000000001', '1E+40012345678901234567891', '-0.5e-00000000000012345678901']) {
      expect(() => q.evaluate({ inputText: doc.replace('2, 3', `2, ${n}`) + pad }), n).toThrow(/malformed input document: invalid number/);
      expect(() => parseJSONSparse(doc.replace('2, 3', `2, ${n}`), needs), n).toThrow(JSONParseError);
    }
    // an exponent at the limit, or long only by its leading zeros, is a number
    for (const n of ['1e1000000000', '1e-0000000000001000000000', '2E+00000000000000000007']) {
      expect(q.evaluate({ inputText: doc.replace('2, 3', `2, ${n}`) + pad })[0]!.expressions[0]!.value, n).toBe(1);
      expect(() => parseJSON(doc.replace('2, 3', `2, ${n}`)), n).not.toThrow();
    }
  });

  it('reads all of it when the policy uses input whole or replaces it', () => {
    const whole = (src: string) => inputNeeds(new Regolith().addModule('t.rego', src).compile().root, []);
    expect(whole('package t\nx := object.get(input, "a", 1)')).toBeUndefined();
    expect(whole('package t\nx if { input.a } \ny if x with input as {}')).toBeUndefined();
    expect(whole('package t\nx := input.a')).toBeDefined();
  });
});
