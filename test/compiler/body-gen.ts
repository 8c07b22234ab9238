// Generator of Rego bodies for the body-order metamorphic property
// (test/compiler/body-order.property.test.ts), with a small JS reference evaluator.
//
// A body is generated in a *binding order*: every expression only reads variables bound by
// the expressions before it (or by the enclosing scope), so the written order is safe and its
// meaning is the plain left-to-right enumeration that `solutions` computes in JS. The test
// then writes the same expressions in other orders and expects Regolith to give the same
// answer, because Rego bodies are order-independent, with the exceptions that OPA itself
// makes, modelled by `classify`:
//   - a var declared by `:=` or `some` must not be mentioned earlier in the same body
//     (OPA: rego_compile_error "var y referenced above");
//   - a declared var mentioned earlier only inside a closure (comprehension or `every` body)
//     is, in that closure, a different, unbound var: rego_unsafe_var_error when the closure
//     only reads it; when the closure could bind it (x[y]) the answer is a different program,
//     so the permutation is not checked.
//   - array comprehensions keep the iteration order of the body as OPA plans it: nested in
//     written order of the generators. Swapping two generators legitimately changes the order
//     of the array ([[a, b] | a := [1, 2][_]; b := [3, 4][_]] differs from the swapped body
//     in OPA too), so `orderPreserving` says when the exact order must match.

import fc from 'fast-check';

export type Ty = 'int' | 'str' | 'rec' | 'num' | 'coll';
export type Val = number | string | boolean | null | Val[] | { [k: string]: Val } | RSet;
/** A Rego set in the reference evaluator: members keyed by their canonical JSON. */
export class RSet {
  constructor(readonly m: Map<string, Val> = new Map()) {}
  add(v: Val): void {
    this.m.set(key(v), v);
  }
  has(v: Val): boolean {
    return this.m.has(key(v));
  }
  get size(): number {
    return this.m.size;
  }
  sorted(): Val[] {
    return [...this.m.values()].sort(compare);
  }
}

export type Env = Record<string, Val>;
export interface OCtx {
  inputN: number;
}
/** How a rule or function name is written: short in a module, data.t.<name> in a query. */
export interface Ctx {
  q: boolean;
}
const R = (c: Ctx, name: string): string => (c.q ? `data.t.${name}` : name);

export interface Ex {
  r: (c: Ctx) => string;
  /** Vars read directly (must be bound before). */
  needs: string[];
  /** Vars bound directly. */
  binds: string[];
  /** The subset of binds declared with := or some. */
  declares: string[];
  /** Outer vars read inside a closure (comprehension / every body). */
  nested: string[];
  /** Outer vars that a closure could bind if they were unbound there. */
  nestedBindable: string[];
  /** Needs in a position that would bind them if unbound (x[a]). */
  bindable: string[];
  /**
   * Needs that unification could still bind if they were unbound, once another expression
   * binds the other side (k in `[v, w] = [a + 1, k]` after `data.d.obj[w]`): only a
   * closure's reads count them, to tell its own unbound var from an unsafe one.
   */
  unifiable: string[];
  /** May produce more than one solution. */
  multi: boolean;
  run: (env: Env, o: OCtx) => Env[];
}

// ---------------------------------------------------------------- fixed data and module

export const DATA = {
  d: {
    xs: [1, 2, 3, 4],
    obj: { a: 1, b: 2, c: 3 },
    pairs: [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'a'],
    ],
    recs: [
      { f: 's', n: 1 },
      { f: 't', n: 2 },
      { f: 's', n: 3 },
    ],
  },
};
export const INPUT_N = 2;
const XSET = [1, 2, 3, 4, 5, 6];
/** Rules every generated module has (package t). */
export const BASE_RULES = `x := {1, 2, 3, 4, 5, 6}

h(a) := a * 3

np := input.n + 10
`;

// ---------------------------------------------------------------- values

const rank = (v: Val): number =>
  v === null ? 0 : typeof v === 'boolean' ? 1 : typeof v === 'number' ? 2 : typeof v === 'string' ? 3 : Array.isArray(v) ? 4 : v instanceof RSet ? 6 : 5;

/** OPA's total order over the values the generator produces. */
export function compare(a: Val, b: Val): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' || typeof a === 'string') return a < (b as typeof a) ? -1 : a > (b as typeof a) ? 1 : 0;
  if (typeof a === 'boolean' || a === null) return a === b ? 0 : a ? 1 : -1;
  const seq = (xs: Val[], ys: Val[]): number => {
    for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
      const c = compare(xs[i]!, ys[i]!);
      if (c) return c;
    }
    return xs.length - ys.length;
  };
  if (Array.isArray(a)) return seq(a, b as Val[]);
  if (a instanceof RSet) return seq(a.sorted(), (b as RSet).sorted());
  const ao = a as Record<string, Val>;
  const bo = b as Record<string, Val>;
  const ak = Object.keys(ao).sort();
  const bk = Object.keys(bo).sort();
  for (let i = 0; i < Math.min(ak.length, bk.length); i++) {
    const c = compare(ak[i]!, bk[i]!) || compare(ao[ak[i]!]!, bo[bk[i]!]!);
    if (c) return c;
  }
  return ak.length - bk.length;
}

/** The JSON Regolith answers with: sets become sorted arrays. */
export function toJSON(v: Val): unknown {
  if (v instanceof RSet) return v.sorted().map(toJSON);
  if (Array.isArray(v)) return v.map(toJSON);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJSON(x)]));
  return v;
}
export function key(v: Val): string {
  return JSON.stringify(toJSON(v));
}

// ---------------------------------------------------------------- bodies

export interface Body {
  exprs: Ex[];
  /** Vars bound by the body itself (top level), with their types. */
  vars: Map<string, Ty>;
}

/** All solutions of a body written in binding order, from `env`. */
export function solutions(exprs: Ex[], env: Env, o: OCtx): Env[] {
  let envs = [env];
  for (const e of exprs) envs = envs.flatMap((x) => e.run(x, o));
  return envs;
}

export type Verdict = 'ok' | 'referenced-above' | 'unsafe' | 'skip';

/**
 * What OPA makes of the body written in `order` (indices into exprs); see the file comment.
 */
export function classify(exprs: Ex[], order: number[]): Verdict {
  const seen = new Set<string>();
  const seenNested = new Set<string>();
  const seenNestedBindable = new Set<string>();
  let verdict: Verdict = 'ok';
  for (const i of order) {
    const e = exprs[i]!;
    // `:=` reads its right-hand side before declaring; `some x in c` likewise.
    for (const d of e.declares) {
      if (seen.has(d)) return 'referenced-above';
      if (seenNestedBindable.has(d)) verdict = 'skip';
      else if (seenNested.has(d) && verdict === 'ok') verdict = 'unsafe';
    }
    for (const v of [...e.needs, ...e.binds]) seen.add(v);
    for (const v of e.nested) seenNested.add(v);
    for (const v of e.nestedBindable) seenNestedBindable.add(v);
  }
  return verdict;
}

/**
 * Whether an array comprehension over the body written in `order` must list its elements in
 * exactly the order of the binding order. The body runs in the order OPA's safety reordering
 * gives it: passes over the written order, each taking every expression whose needs are
 * bound by then. The answer is no when a lookup (x[a]) runs before a's binder — it then
 * iterates x, a generator of its own — or when the generators run in another order.
 */
export function orderPreserving(exprs: Ex[], order: number[]): boolean {
  const binder = (v: string): number => exprs.findIndex((e) => e.binds.includes(v));
  const bound = new Set<string>();
  const isBound = (v: string): boolean => bound.has(v) || binder(v) < 0; // no binder: an outer param
  const ran: number[] = [];
  let remaining = [...order];
  while (remaining.length) {
    const waiting: number[] = [];
    for (const i of remaining) {
      const e = exprs[i]!;
      if (!e.needs.every((v) => isBound(v) || e.bindable.includes(v))) {
        waiting.push(i);
        continue;
      }
      if (e.bindable.some((v) => !isBound(v))) return false;
      ran.push(i);
      for (const v of e.binds) bound.add(v);
    }
    if (waiting.length === remaining.length) return false; // unsafe in this order: classified elsewhere
    remaining = waiting;
  }
  const gens = ran.filter((i) => exprs[i]!.multi);
  for (let k = 1; k < gens.length; k++) if (gens[k]! < gens[k - 1]!) return false;
  return true;
}

// ---------------------------------------------------------------- the generator

type G = fc.GeneratorValue;
const int = (g: G, min: number, max: number): number => g(fc.integer, { min, max });
const pick = <T>(g: G, xs: readonly T[]): T => xs[int(g, 0, xs.length - 1)]!;

interface Scope {
  /** Vars readable here (outer scopes and this body so far), with their types. */
  bound: Map<string, Ty>;
  /** Vars of enclosing scopes (reads of them from a closure are "nested"). */
  prefix: string;
  counter: { n: number };
  depth: number;
}

function fresh(s: Scope): string {
  return `${s.prefix}${s.counter.n++}`;
}
const ofType = (s: Scope, t: Ty): string[] => [...s.bound].filter(([, ty]) => ty === t).map(([n]) => n);

function ex(p: Partial<Ex> & Pick<Ex, 'r' | 'run'>): Ex {
  return { needs: [], binds: [], declares: [], nested: [], nestedBindable: [], bindable: [], unifiable: [], multi: false, ...p };
}
const num = (env: Env, n: string): number => env[n] as number;

/** Generators: bind fresh vars from the fixed data; read nothing. */
function generator(g: G, s: Scope): { e: Ex; out: [string, Ty][]; pre?: Ex } {
  const v = fresh(s);
  switch (int(g, 0, 8)) {
    case 8:
      // `some i` declares a var that the next expression binds.
      return {
        pre: ex({ r: () => `some ${v}`, declares: [v], run: (env) => [env] }),
        e: ex({ r: () => `data.d.xs[${v}] > 1`, binds: [v], multi: true, run: (env) => DATA.d.xs.flatMap((n, i) => (n > 1 ? [{ ...env, [v]: i }] : [])) }),
        out: [[v, 'int']],
      };
    case 0:
      return {
        e: ex({ r: (c) => `${R(c, 'x')}[${v}]`, binds: [v], multi: true, run: (env) => XSET.map((n) => ({ ...env, [v]: n })) }),
        out: [[v, 'int']],
      };
    case 1:
      return {
        e: ex({ r: () => `data.d.xs[${v}]`, binds: [v], multi: true, run: (env) => DATA.d.xs.map((_, i) => ({ ...env, [v]: i })) }),
        out: [[v, 'int']],
      };
    case 2:
      return {
        e: ex({ r: () => `some ${v} in data.d.xs`, binds: [v], declares: [v], multi: true, run: (env) => DATA.d.xs.map((n) => ({ ...env, [v]: n })) }),
        out: [[v, 'int']],
      };
    case 3: {
      const k = fresh(s);
      return {
        e: ex({
          r: () => `some ${k}, ${v} in data.d.obj`,
          binds: [k, v],
          declares: [k, v],
          multi: true,
          run: (env) => Object.entries(DATA.d.obj).map(([kk, n]) => ({ ...env, [k]: kk, [v]: n })),
        }),
        out: [
          [k, 'str'],
          [v, 'int'],
        ],
      };
    }
    case 4: {
      const q = fresh(s);
      return {
        e: ex({
          r: () => `[${v}, ${q}] = data.d.pairs[_]`,
          binds: [v, q],
          multi: true,
          run: (env) => DATA.d.pairs.map(([a, b]) => ({ ...env, [v]: a!, [q]: b! })),
        }),
        out: [
          [v, 'int'],
          [q, 'str'],
        ],
      };
    }
    case 5:
      return {
        e: ex({ r: () => `some ${v} in data.d.recs`, binds: [v], declares: [v], multi: true, run: (env) => DATA.d.recs.map((r) => ({ ...env, [v]: r })) }),
        out: [[v, 'rec']],
      };
    case 6:
      return {
        e: ex({ r: () => `${v} := data.d.recs[_]`, binds: [v], declares: [v], multi: true, run: (env) => DATA.d.recs.map((r) => ({ ...env, [v]: r })) }),
        out: [[v, 'rec']],
      };
    default:
      return {
        e: ex({ r: () => `${v} = data.d.xs[_]`, binds: [v], multi: true, run: (env) => DATA.d.xs.map((n) => ({ ...env, [v]: n })) }),
        out: [[v, 'int']],
      };
  }
}

/** A closure body: generated in a new scope that reads the enclosing one. */
function closureBody(g: G, s: Scope, size: number, extra: [string, Ty][] = []): { body: Body; order: number[]; inner: Scope } {
  const inner: Scope = { bound: new Map([...s.bound, ...extra]), prefix: `${s.prefix}c${s.counter.n++}_`, counter: { n: 0 }, depth: s.depth + 1 };
  const body = genBodyIn(g, inner, size);
  return { body, order: validShuffle(g, body.exprs), inner };
}

/** A shuffle of the closure's body that OPA reads as the same program (else the binding order). */
function validShuffle(g: G, exprs: Ex[]): number[] {
  const order = shuffle(g, exprs.length);
  return classify(exprs, order) === 'ok' && orderPreserving(exprs, order) ? order : exprs.map((_, i) => i);
}

export function shuffle(g: G, n: number): number[] {
  const xs = [...Array(n).keys()];
  for (let i = n - 1; i > 0; i--) {
    const j = int(g, 0, i);
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

export const renderBody = (exprs: Ex[], order: number[], c: Ctx): string => order.map((i) => exprs[i]!.r(c)).join('; ');

/** Reads of the enclosing scope made by a closure body (directly or deeper). */
function outerReads(body: Body, outer: Map<string, Ty>, extraLocal: string[] = []): { nested: string[]; nestedBindable: string[] } {
  const local = new Set([...body.vars.keys(), ...extraLocal]);
  const nested = new Set<string>();
  const bindable = new Set<string>();
  for (const e of body.exprs) {
    for (const v of [...e.needs, ...e.nested]) if (outer.has(v) && !local.has(v)) nested.add(v);
    for (const v of [...e.bindable, ...e.unifiable, ...e.nestedBindable]) if (outer.has(v) && !local.has(v)) bindable.add(v);
  }
  return { nested: [...nested], nestedBindable: [...bindable] };
}

/** A comprehension over a closure body: its text and its JS value. */
function comprehension(g: G, s: Scope, kind: 'set' | 'array'): { r: (c: Ctx) => string; reads: ReturnType<typeof outerReads>; run: (env: Env, o: OCtx) => Val } {
  const { body, order, inner } = closureBody(g, s, int(g, 1, 3));
  const ints = ofType(inner, 'int');
  const head = ints.length ? pick(g, ints) : '1';
  const reads = outerReads(body, s.bound);
  if (head !== '1' && s.bound.has(head) && !body.vars.has(head)) reads.nested.push(head);
  const r = (c: Ctx) => (kind === 'set' ? `{${head} | ${renderBody(body.exprs, order, c)}}` : `[${head} | ${renderBody(body.exprs, order, c)}]`);
  const run = (env: Env, o: OCtx): Val => {
    const vals = solutions(body.exprs, env, o).map((e) => (head === '1' ? 1 : e[head]!));
    if (kind === 'array') return vals;
    const set = new RSet();
    for (const v of vals) set.add(v);
    return set;
  };
  return { r, reads, run };
}

/** Expressions that read bound vars: deterministic binders and filters. */
function dependent(g: G, s: Scope): { e: Ex; out: [string, Ty][] } | undefined {
  const ints = ofType(s, 'int');
  const strs = ofType(s, 'str');
  const recs = ofType(s, 'rec');
  const nums = ofType(s, 'num');
  const colls = ofType(s, 'coll');
  const choice = int(g, 0, 28);
  const y = () => fresh(s);
  const filter = (e: Partial<Ex> & Pick<Ex, 'r'>, test: (env: Env, o: OCtx) => boolean) =>
    ({ e: ex({ ...e, run: (env, o) => (test(env, o) ? [env] : []) }), out: [] as [string, Ty][] });
  const det = (e: Partial<Ex> & Pick<Ex, 'r'>, v: string, ty: Ty, f: (env: Env, o: OCtx) => Val | undefined) => ({
    e: ex({
      ...e,
      run: (env: Env, o: OCtx) => {
        const r = f(env, o);
        return r === undefined ? [] : [{ ...env, [v]: r }];
      },
    }),
    out: [[v, ty]] as [string, Ty][],
  });
  switch (choice) {
    case 0: {
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      const v = y();
      return det({ r: () => `${v} := ${a} + 1`, needs: [a], binds: [v], declares: [v] }, v, 'int', (env) => num(env, a) + 1);
    }
    case 1: {
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      const v = y();
      return det({ r: () => `${v} = ${a} * 2`, needs: [a], binds: [v] }, v, 'int', (env) => num(env, a) * 2);
    }
    case 2: {
      if (ints.length < 2) return undefined;
      const a = pick(g, ints);
      const b = pick(g, ints);
      const v = y();
      return det({ r: () => `${v} := ${a} - ${b}`, needs: [a, b], binds: [v], declares: [v] }, v, 'int', (env) => num(env, a) - num(env, b));
    }
    case 3: {
      if (s.depth >= 2) return undefined;
      const comp = comprehension(g, s, int(g, 0, 1) ? 'set' : 'array');
      const v = y();
      return det(
        { r: (c) => `${v} := count(${comp.r(c)})`, binds: [v], declares: [v], ...comp.reads },
        v,
        'int',
        (env, o) => {
          const c = comp.run(env, o);
          return c instanceof RSet ? c.size : (c as Val[]).length;
        },
      );
    }
    case 4: {
      if (s.depth >= 2) return undefined;
      const comp = comprehension(g, s, 'set');
      const v = y();
      return det({ r: (c) => `${v} := ${comp.r(c)}`, binds: [v], declares: [v], ...comp.reads }, v, 'coll', (env, o) => comp.run(env, o));
    }
    case 5: {
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      const v = y();
      return det({ r: (c) => `${v} := ${R(c, 'h')}(${a})`, needs: [a], binds: [v], declares: [v] }, v, 'int', (env) => num(env, a) * 3);
    }
    case 6: {
      if (!recs.length) return undefined;
      const r = pick(g, recs);
      const v = y();
      return int(g, 0, 1)
        ? det({ r: () => `${v} := ${r}.f`, needs: [r], binds: [v], declares: [v] }, v, 'str', (env) => (env[r] as { f: string }).f)
        : det({ r: () => `${v} := ${r}.n`, needs: [r], binds: [v], declares: [v] }, v, 'int', (env) => (env[r] as { n: number }).n);
    }
    case 7: {
      const v = y();
      return det({ r: () => `${v} := input.n`, binds: [v], declares: [v] }, v, 'int', (_env, o) => o.inputN);
    }
    case 8: {
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      const v = y();
      return det({ r: (c) => `${v} := ${R(c, 'np')} with input.n as ${a}`, needs: [a], binds: [v], declares: [v] }, v, 'int', (env) => num(env, a) + 10);
    }
    case 9: {
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      const v = y();
      return det({ r: () => `${v} := ${a} / 3`, needs: [a], binds: [v], declares: [v] }, v, 'num', (env) => num(env, a) / 3);
    }
    case 10: {
      if (ints.length < 2) return undefined;
      const [a, b] = [pick(g, ints), pick(g, ints)];
      const v = y();
      const fn = pick(g, ['sum', 'max'] as const);
      return det({ r: () => `${v} := ${fn}([${a}, ${b}])`, needs: [a, b], binds: [v], declares: [v] }, v, 'int', (env) =>
        fn === 'sum' ? num(env, a) + num(env, b) : Math.max(num(env, a), num(env, b)),
      );
    }
    case 11:
    case 12: {
      const lhs = [...ints, ...nums];
      if (!lhs.length || !ints.length) return undefined;
      const a = pick(g, lhs);
      const b = pick(g, ints);
      const op = pick(g, ['<', '!=', '>*2'] as const);
      if (op === '>*2') return filter({ r: () => `${a} > ${b} * 2`, needs: [a, b] }, (env) => num(env, a) > num(env, b) * 2);
      if (op === '<') return filter({ r: () => `${a} < ${b}`, needs: [a, b] }, (env) => num(env, a) < num(env, b));
      return filter({ r: () => `${a} != ${b}`, needs: [a, b] }, (env) => num(env, a) !== num(env, b));
    }
    case 13: {
      if (recs.length) {
        const r = pick(g, recs);
        return filter({ r: () => `${r}.f == "s"`, needs: [r] }, (env) => (env[r] as { f: string }).f === 's');
      }
      if (!strs.length) return undefined;
      const k = pick(g, strs);
      return int(g, 0, 1)
        ? filter({ r: () => `${k} != "b"`, needs: [k] }, (env) => env[k] !== 'b')
        : filter({ r: () => `${k} == "a"`, needs: [k] }, (env) => env[k] === 'a');
    }
    case 14: {
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      return filter({ r: (c) => `${a} in ${R(c, 'x')}`, needs: [a] }, (env) => XSET.includes(num(env, a)));
    }
    case 15: {
      const xs = [...ints, ...nums];
      if (!xs.length) return undefined;
      const a = pick(g, xs);
      return filter({ r: (c) => `${R(c, 'x')}[${a}]`, needs: [a], bindable: [a] }, (env) => XSET.includes(num(env, a)));
    }
    case 16: {
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      const k = int(g, 1, 4);
      switch (int(g, 0, 3)) {
        case 0:
          return filter({ r: () => `not ${a} == ${k}`, needs: [a] }, (env) => num(env, a) !== k);
        case 1:
          return filter({ r: (c) => `not ${a} in ${R(c, 'x')}`, needs: [a] }, (env) => !XSET.includes(num(env, a)));
        case 2:
          return filter({ r: (c) => `not ${R(c, 'x')}[${a} + 1]`, needs: [a] }, (env) => !XSET.includes(num(env, a) + 1));
        default:
          // In a module `==` is `=` (OPA's RewriteEquals), so the negation covers the iteration.
          // In a query `==` stays a call whose ref operand OPA moves out of the `not` (the
          // iteration then runs outside it), so the query writes the unification instead.
          return filter({ r: (c) => `not data.d.xs[_] ${c.q ? '=' : '=='} ${a}`, needs: [a] }, (env) => !DATA.d.xs.includes(num(env, a)));
      }
    }
    case 17: {
      if (!ints.length || !colls.length) return undefined;
      const a = pick(g, ints);
      const c = pick(g, colls);
      return filter({ r: () => `${a} in ${c}`, needs: [a, c] }, (env) => (env[c] as RSet).has(num(env, a)));
    }
    case 18: {
      if (!colls.length) return undefined;
      const c = pick(g, colls);
      const k = int(g, 0, 3);
      return filter({ r: () => `count(${c}) > ${k}`, needs: [c] }, (env) => (env[c] as RSet).size > k);
    }
    case 19: {
      if (s.depth >= 2) return undefined;
      const comp = comprehension(g, s, int(g, 0, 1) ? 'set' : 'array');
      const k = int(g, 0, 3);
      return filter({ r: (c) => `count(${comp.r(c)}) > ${k}`, ...comp.reads }, (env, o) => {
        const v = comp.run(env, o);
        return (v instanceof RSet ? v.size : (v as Val[]).length) > k;
      });
    }
    case 20: {
      if (s.depth >= 2) return undefined;
      const z = `${s.prefix}z${s.counter.n++}`;
      const { body, order } = closureBody(g, s, int(g, 1, 2), [[z, 'int']]);
      // OPA rejects an every whose var the body never uses ("declared var z unused").
      if (!body.exprs.some((e) => e.needs.includes(z) || e.bindable.includes(z) || e.nested.includes(z))) {
        const k = int(g, 0, 4);
        body.exprs.push(ex({ r: () => `${z} != ${k}`, needs: [z], run: (env) => (env[z] !== k ? [env] : []) }));
        order.push(body.exprs.length - 1);
      }
      const reads = outerReads(body, s.bound, [z]);
      return filter(
        { r: (c) => `every ${z} in data.d.xs { ${renderBody(body.exprs, order, c)} }`, ...reads },
        (env, o) => DATA.d.xs.every((n) => solutions(body.exprs, { ...env, [z]: n }, o).length > 0),
      );
    }
    case 24: {
      // A call with an output argument binds it.
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      const v = y();
      return det({ r: (c) => `${R(c, 'h')}(${a}, ${v})`, needs: [a], binds: [v] }, v, 'int', (env) => num(env, a) * 3);
    }
    case 25: {
      if (!strs.length) return undefined;
      const k = pick(g, strs);
      const v = y();
      return det({ r: () => `${v} := data.d.obj[${k}]`, needs: [k], bindable: [k], binds: [v], declares: [v] }, v, 'int', (env) => (DATA.d.obj as Record<string, number>)[env[k] as string]);
    }
    case 26: {
      if (strs.length < 2) return undefined;
      const [k, q] = [pick(g, strs), pick(g, strs)];
      return filter({ r: () => `${k} == ${q}`, needs: [k, q] }, (env) => env[k] === env[q]);
    }
    case 27: {
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      const k = strs.length ? pick(g, strs) : undefined;
      const [v, w] = [y(), y()];
      return {
        e: ex({
          r: () => `[${v}, ${w}] = [${a} + 1, ${k ?? '"s"'}]`,
          needs: k ? [a, k] : [a],
          unifiable: k ? [k] : [],
          binds: [v, w],
          run: (env) => [{ ...env, [v]: num(env, a) + 1, [w]: k ? env[k]! : 's' }],
        }),
        out: [
          [v, 'int'],
          [w, 'str'],
        ],
      };
    }
    case 28: {
      if (ints.length < 2) return undefined;
      const [a, b] = [pick(g, ints), pick(g, ints)];
      return filter({ r: (c) => `not ${R(c, 'h')}(${a}) == ${b}`, needs: [a, b] }, (env) => num(env, a) * 3 !== num(env, b));
    }
    case 21: {
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      return filter({ r: () => `${a} % 2 == 0`, needs: [a] }, (env) => num(env, a) % 2 === 0);
    }
    case 22: {
      if (ints.length < 2) return undefined;
      const [a, b] = [pick(g, ints), pick(g, ints)];
      return filter({ r: (c) => `${R(c, 'h')}(${a}) > ${b}`, needs: [a, b] }, (env) => num(env, a) * 3 > num(env, b));
    }
    default: {
      if (!ints.length) return undefined;
      const a = pick(g, ints);
      const v = y();
      return det({ r: () => `${v} = ${a} + 0`, needs: [a], binds: [v] }, v, 'int', (env) => num(env, a));
    }
  }
}

function genBodyIn(g: G, s: Scope, size: number): Body {
  const exprs: Ex[] = [];
  const vars = new Map<string, Ty>();
  for (let tries = 0; exprs.length < size && tries < size * 6; tries++) {
    // a body is never empty (`[x | ]` is no Rego): when every try failed, the last one generates
    const wantGen = exprs.length === 0 ? int(g, 0, 3) > 0 || tries === size * 6 - 1 : int(g, 0, 3) === 0;
    const got: { e: Ex; out: [string, Ty][]; pre?: Ex } | undefined = wantGen ? generator(g, s) : dependent(g, s);
    if (!got) continue;
    if (got.pre) exprs.push(got.pre);
    exprs.push(got.e);
    for (const [v, t] of got.out) {
      s.bound.set(v, t);
      vars.set(v, t);
    }
  }
  return { exprs, vars };
}

/** A body, safe in the written order, in a scope that already binds `params`. */
export function genBody(g: G, params: [string, Ty][], size: number): Body {
  return genBodyIn(g, { bound: new Map(params), prefix: 'v', counter: { n: 0 }, depth: 0 }, size);
}

/** A var no expression binds: makes the body unsafe in every order. */
export function poison(g: G, body: Body): Ex[] {
  const ints = [...body.vars].filter(([, t]) => t === 'int').map(([n]) => n);
  const a = ints.length ? pick(g, ints) : '1';
  const noop = (): Env[] => [];
  switch (int(g, 0, 2)) {
    case 0:
      return [ex({ r: () => `${a} < zz`, needs: ints.length ? [a, 'zz'] : ['zz'], run: noop })];
    case 1:
      return [ex({ r: (c) => `not ${R(c, 'x')}[zz]`, needs: ['zz'], run: noop })];
    default:
      return [
        ex({ r: () => `zz = zw + 1`, needs: ['zw'], binds: ['zz'], run: noop }),
        ex({ r: () => `zw = zz - 1`, needs: ['zz'], binds: ['zw'], run: noop }),
      ];
  }
}
