// Runs of test expressions generated as JavaScript (src/eval/closures/codegen.ts). Generated
// policies (functions of several clauses of comparisons, calls between them, `every` over
// arrays with an index, `not`, refs into input of several depths and types, exact big
// numbers, missing members, `with`) are evaluated with code generation on and with it off
// (the closures only): the answers, the errors of strict runs and the built-in errors
// collected must be the same.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Regolith } from '../../../src/index.js';
import { codegen } from '../../../src/eval/closures/codegen.js';
import { seededRandom } from '../../seeded-random.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const WARMUP = codegen.warmup;

type R = () => number;
const pick = <T>(r: R, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const CONSTANTS = ['"*"', '"a"', '"b"', '""', '"é😀"', '"ｶ"', '3', '1', '1.0', '2', '-0', '0.5', '12345678901234567890', '1e400', 'null', 'true', 'false', '[1]', '["a", "b"]', '{"a": 1}', '[]'];
const INPUT_REFS = ['input.a', 'input.b.c', 'input.b.d.e', 'input.arr[0]', 'input.arr[1]', 'input.flag', 'input.b.d', 'input.arr', 'input["a"]'];
const OPS = ['==', '==', '==', '!=', '<', '<=', '>', '>=', 'in', '='];

function operand(r: R, vars: string[]): string {
  const x = r();
  if (x < 0.3) return pick(r, CONSTANTS);
  if (x < 0.6 && vars.length) return pick(r, vars);
  if (x < 0.7 && vars.length) return `count(${pick(r, vars)})`;
  if (x < 0.75) return 'count(input.arr)';
  if (x < 0.8 && vars.length > 1) return `${vars[0]}[${vars[1]}]`;
  return pick(r, INPUT_REFS);
}

function comparison(r: R, vars: string[]): string {
  const op = pick(r, OPS);
  const a = operand(r, vars);
  // `x in <scalar constant>` is a type error at compile time
  const b = op === 'in' && r() < 0.7 ? pick(r, ['input.arr', '["a", "b"]', 'input.b', ...vars]) : operand(r, vars);
  const c = `${a} ${op} ${b}`;
  return r() < 0.15 ? `not ${c}` : c;
}

interface Fn {
  name: string;
  arity: number;
}

/** One expression of a body over `vars`, which may call the functions `fns`. */
function expression(r: R, vars: string[], fns: Fn[], depth: number): string {
  const x = r();
  if (x < 0.2 && fns.length) {
    const f = pick(r, fns);
    const args = Array.from({ length: f.arity }, () => (r() < 0.5 && vars.length ? pick(r, vars) : pick(r, [...INPUT_REFS, '"a"', '1', '[1, 2]'])));
    return `${r() < 0.15 ? 'not ' : ''}${f.name}(${args.join(', ')})`;
  }
  if (x < 0.35 && depth < 2) {
    const [k, v] = [`k${depth}`, `v${depth}`];
    const keyed = r() < 0.7;
    const dom = pick(r, ['input.arr', 'input.arr2', 'input.b', 'members', ...vars.filter((n) => !n.startsWith('k'))]);
    const inner = keyed ? [...vars, k, v] : [...vars, v];
    const body = Array.from({ length: 1 + Math.floor(r() * 2) }, () => expression(r, inner, fns, depth + 1));
    // the declared variables used in the body
    body.push(keyed ? pick(r, [`input.arr2[${k}] != ${v}`, `${k} != "never"; ${v} != "never"`]) : `${v} != "never"`);
    return `every ${keyed ? `${k}, ` : ''}${v} in ${dom} {\n\t\t${body.join('\n\t\t')}\n\t}`;
  }
  if (x < 0.4) return pick(r, ['input.flag', 'true', ...vars]);
  return comparison(r, vars);
}

function body(r: R, vars: string[], fns: Fn[]): string {
  const n = 1 + Math.floor(r() * 3);
  return Array.from({ length: n }, () => expression(r, vars, fns, 0)).join('\n\t');
}

function policy(r: R): string {
  const out = ['package t', '', 'always(_, _) := true', 'zero(_) := 0'];
  const fns: Fn[] = [];
  // leaf functions of comparisons, then functions calling them (inline.ts inlines 3 deep)
  for (let level = 0; level < 3; level++) {
    const name = `f${level}`;
    const arity = 1 + Math.floor(r() * 2);
    const params = ['p', 'q'].slice(0, arity);
    const clauses = 1 + Math.floor(r() * 3);
    for (let c = 0; c < clauses; c++) {
      const args = params.map((p) => (r() < 0.1 ? '_' : p));
      const vars = params.filter((_, i) => args[i] !== '_');
      out.push(`${name}(${args.join(', ')}) if {\n\t${body(r, vars, fns)}\n}`);
    }
    fns.push({ name, arity });
  }
  for (let i = 0; i < 4; i++) out.push(`r${i} if {\n\t${body(r, [], fns)}\n}`);
  out.push('bound contains x if {\n\tsome x in input.arr\n\t' + body(r, ['x'], fns) + '\n}');
  out.push(`listed := [x | some x in input.arr; ${comparison(r, ['x'])}; ${comparison(r, ['x'])}]`);
  // a set for \`every\` to walk (not an array: the closures walk it)
  out.push('members contains x if some x in input.arr');
  out.push('mocked if r0 with count as zero', 'mocked_f if r1 with f0 as always', 'replaced if r2 with input.a as "a"');
  out.push('negated if not r3');
  return out.join('\n') + '\n';
}

const VALUES = ['"*"', '"a"', '"b"', '""', '"é😀"', '"😀"', '"ｶ"', '1', '1.5', '2', '0', '12345678901234567890', '1e400', 'null', 'true', 'false', '[1]', '["a", "b"]', '{"a": 1}', '[]', '{}'];

function value(r: R, depth = 0): string {
  const x = r();
  if (depth < 2 && x < 0.15) return `[${Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth + 1)).join(', ')}]`;
  if (depth < 2 && x < 0.25) return `{"c": ${value(r, depth + 1)}, "d": {"e": ${value(r, depth + 1)}}}`;
  return pick(r, VALUES);
}

function inputText(r: R): string {
  const fields: string[] = [];
  const maybe = (k: string, v: () => string) => {
    if (r() < 0.85) fields.push(`"${k}": ${v()}`);
  };
  maybe('a', () => value(r));
  maybe('b', () => (r() < 0.7 ? `{"c": ${value(r)}, "d": ${r() < 0.8 ? `{"e": ${value(r)}}` : value(r)}}` : value(r)));
  const arr = () => (r() < 0.8 ? `[${Array.from({ length: Math.floor(r() * 4) }, () => value(r)).join(', ')}]` : value(r));
  maybe('arr', arr);
  maybe('arr2', arr);
  maybe('flag', () => pick(r, ['true', 'false', '1', 'null']));
  return `{${fields.join(', ')}}`;
}

/** Everything a run can tell: its answer or error, and the built-in errors it collected. */
function outcome(pq: ReturnType<Regolith['prepare']>, text: string, strict: boolean): unknown {
  const builtinErrors: unknown[] = [];
  try {
    const v = pq.evaluate({ inputText: text, strictBuiltinErrors: strict, builtinErrors: builtinErrors as never })[0]?.expressions[0]?.value;
    return { v, errors: builtinErrors.map((e) => String((e as Error).message)) };
  } catch (e) {
    return { thrown: String((e as Error).message) };
  }
}

function withCodegen<T>(on: boolean, fn: () => T): T {
  const was = codegen.enabled;
  codegen.enabled = on;
  try {
    return fn();
  } finally {
    codegen.enabled = was;
  }
}

// functions made at a run's first use (not after the warm-up), so that every run is checked
beforeEach(() => {
  codegen.warmup = 0;
});
afterEach(() => {
  codegen.enabled = true;
  codegen.warmup = WARMUP;
});

describe('generated test runs', () => {
  it('answer as the closures do, on generated policies and inputs', () => {
    const r = seededRandom(4242);
    let compiled = 0;
    const before = codegen.built;
    for (let p = 0; p < 150; p++) {
      const text = policy(r);
      const inputs = Array.from({ length: 12 }, () => inputText(r));
      let on: Regolith;
      try {
        on = new Regolith().addModule('t.rego', text);
        on.compile();
      } catch {
        continue; // a type error the generator did not avoid
      }
      compiled++;
      const off = new Regolith().addModule('t.rego', text);
      const pqOn = on.prepare('data.t');
      const pqOff = off.prepare('data.t');
      for (const input of inputs) {
        for (const strict of [false, true]) {
          const a = withCodegen(true, () => outcome(pqOn, input, strict));
          const b = withCodegen(false, () => outcome(pqOff, input, strict));
          expect({ text, input, strict, a }).toEqual({ text, input, strict, a: b });
        }
      }
    }
    expect(compiled).toBeGreaterThan(120);
    // the generator did write functions (not only fallbacks)
    expect(codegen.built - before).toBeGreaterThan(200);
  });

  it('gives the expected answers on the gateway shape', () => {
    const text = `package g
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
allow if {
	input.m == "GET"
	pm(input.pattern, input.path)
}
`;
    const before = codegen.built;
    const pq = new Regolith().addModule('g.rego', text).prepare('data.g.allow');
    const at = (input: unknown) => pq.evaluate({ input })[0]?.expressions[0]?.value;
    expect(at({ m: 'GET', pattern: ['a', '{t}', '*'], path: ['a', 'acme', 'x'], t: 'acme' })).toBe(true);
    expect(at({ m: 'GET', pattern: ['a', '{t}', '*'], path: ['a', 'other', 'x'], t: 'acme' })).toBeUndefined();
    expect(at({ m: 'GET', pattern: ['a', '{t}'], path: ['a', '{t}'] })).toBe(true);
    expect(at({ m: 'GET', pattern: ['a'], path: ['a', 'b'] })).toBeUndefined();
    expect(at({ m: 'PUT', pattern: ['a'], path: ['a'] })).toBeUndefined();
    expect(at({ m: 'GET', pattern: { x: 'a' }, path: { x: 'a' } })).toBe(true); // over an object: its keys index path
    expect(at({ m: 'GET', pattern: { x: 'a' }, path: { y: 'a' } })).toBeUndefined();
    expect(at({ m: 'GET', pattern: 'ab', path: 'cd' })).toBeUndefined(); // every over a string: undefined
    expect(at({ m: 'GET', pattern: [], path: [] })).toBe(true);
    expect(codegen.built).toBeGreaterThan(before);
  });

  it('makes a function after the warm-up runs, which take the closures', () => {
    codegen.warmup = WARMUP;
    const pq = new Regolith().addModule('w.rego', 'package w\np if {\n\tinput.a == 1\n\tinput.b == 2\n}\n').prepare('data.w.p');
    const before = codegen.built;
    for (let i = 0; i < WARMUP; i++) expect(pq.evaluate({ input: { a: 1, b: i % 2 ? 2 : 3 } })[0]?.expressions[0]?.value).toBe(i % 2 ? true : undefined);
    expect(codegen.built).toBe(before);
    for (let i = 0; i < 4; i++) expect(pq.evaluate({ input: { a: 1, b: i % 2 ? 2 : 3 } })[0]?.expressions[0]?.value).toBe(i % 2 ? true : undefined);
    expect(codegen.built).toBe(before + 1);
  });

  it('counts functions alive, not made: a replaced plan gives its share back', async () => {
    const gc = forceGC();
    const maxLive = codegen.maxLive;
    try {
      // one function per revision of a two-expression rule, as a server whose bundle changes
      const revision = (n: number) => {
        const pq = new Regolith().addModule('r.rego', `package r\np if {\n\tinput.a == ${n}\n\tinput.b == 2\n}\n`).prepare('data.r.p');
        expect(pq.evaluate({ input: { a: n, b: 2 } })[0]?.expressions[0]?.value).toBe(true);
      };
      await settle(gc, () => false, 3);
      codegen.maxLive = codegen.live + 3;
      const before = codegen.built;
      for (let n = 0; n < 3; n++) revision(n);
      expect(codegen.built).toBe(before + 3);
      // at the bound: the next revision answers through the closures
      revision(3);
      expect(codegen.built).toBe(before + 3);
      // those plans are gone: once collected, revisions generate again
      await settle(gc, () => codegen.live < codegen.maxLive);
      revision(4);
      expect(codegen.built).toBe(before + 4);
    } finally {
      codegen.maxLive = maxLive;
    }
  });

  it('orders and counts strings by code points', () => {
    const pq = new Regolith().addModule('s.rego', 'package s\np if {\n\tinput.s > "ｶ"\n\tcount(input.s) == 1\n\tinput.s != "ｶ"\n}\n').prepare('data.s.p');
    expect(pq.evaluate({ input: { s: '😀' } })[0]?.expressions[0]?.value).toBe(true);
    expect(pq.evaluate({ input: { s: 'ｶ' } })[0]?.expressions[0]?.value).toBeUndefined();
  });

  it('writes keys and strings from the policy only as quoted literals', () => {
    const evil = ['"); process.exit(1); ("', "'; throw new Error('x'); '", '*/ throw 1; /*', '\u2028throw 1', '\\"); throw 1; //', '__proto__', 'constructor', '${1}`'];
    const escaped = evil.map((k) => JSON.stringify(k));
    const rules = escaped.map(
      (k, i) => `k${i} if {
	input[${k}] == ${k}
	f(input[${k}], ${k})
	every j, x in input.xs {
		x == ${k}
		j >= 0
	}
}`,
    );
    const text = `package e
f(a, b) if a == b
f(a, _) if a == "never"
${rules.join('\n')}
`;
    // JSON.parse makes "__proto__" an own key, as any other
    const input = JSON.parse(`{${escaped.map((k) => `${k}: ${k}`).join(', ')}, "xs": []}`) as unknown;
    const before = codegen.built;
    const pq = new Regolith().addModule('e.rego', text).prepare('data.e');
    const doc = pq.evaluate({ input })[0]!.expressions[0]!.value as Record<string, unknown>;
    for (let i = 0; i < evil.length; i++) expect([evil[i], doc[`k${i}`]]).toEqual([evil[i], true]);
    expect(codegen.built - before).toBeGreaterThanOrEqual(evil.length);
    const other = pq.evaluate({ input: { xs: [] } })[0]!.expressions[0]!.value as Record<string, unknown>;
    expect(Object.keys(other)).toEqual([]);
  });
});

/** A full garbage collection on demand (V8's gc, exposed for this process). */
function forceGC(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Collects and lets finalizers run until `done`, for at most `rounds` rounds. */
async function settle(gc: () => void, done: () => boolean, rounds = 100): Promise<void> {
  for (let i = 0; i < rounds && !done(); i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
}
