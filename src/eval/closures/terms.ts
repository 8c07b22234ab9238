// Compiles terms to closures (see types.ts): scalars, vars, composites, refs (with
// iteration), calls and comprehensions.

import type { Term, RefTerm } from '../../lang/ast.js';
import { missingKind } from '../../lang/visit.js';
import { equal, makeObject, parseNumber, pathReader, RSet, RObject, isObject, objectGet, objectSize, objectEntries, toJSONText, type Value } from '../../value/index.js';
import { lookup } from '../../value/collections.js';
import { iterationFor } from './order.js';
import type { Frame } from '../context.js';
import type { PlanCtx } from './ctx.js';
import type { K, Step, TermC } from './types.js';
import { compileCallTerm } from './calls.js';
import { compileComprehension } from './comprehensions.js';
import { compileDataRef } from './data-ref.js';
import { conflict } from '../errors.js';

export function constant(v: Value): TermC {
  return {
    gen: (_fr, k) => k(v),
    get: () => v,
    match: (fr, x, k) => (equal(x, v) ? k(fr) : false),
    tryValue: () => v,
    pattern: false,
    constant: v,
  };
}

function scalar(t: Term): Value | undefined {
  switch (t.type) {
    case 'null':
      return null;
    case 'boolean':
      return t.value;
    case 'string':
      return t.value;
    case 'number': {
      const n = parseNumber(t.value);
      if (n === undefined) throw new Error(`bad number literal ${t.value}`);
      return n;
    }
    default:
      return undefined;
  }
}

/** A term whose value is fixed (no vars, refs or calls). */
export function constValue(t: Term): Value | undefined {
  const s = scalar(t);
  if (s !== undefined || t.type === 'null') return s;
  if (t.type === 'array') {
    const out: Value[] = [];
    for (const x of t.value) {
      const v = constValue(x);
      if (v === undefined) return undefined;
      out.push(v);
    }
    return out;
  }
  if (t.type === 'set') {
    const out = new RSet();
    for (const x of t.value) {
      const v = constValue(x);
      if (v === undefined) return undefined;
      out.add(v);
    }
    return out;
  }
  if (t.type === 'object') {
    const es: [Value, Value][] = [];
    for (const [k, x] of t.value) {
      const kv = constValue(k);
      const xv = constValue(x);
      if (kv === undefined || xv === undefined) return undefined;
      es.push([kv, xv]);
    }
    return makeObject(es);
  }
  return undefined;
}

export function isPattern(t: Term, pc: PlanCtx): boolean {
  switch (t.type) {
    case 'var':
      return !pc.isBound(t.value);
    case 'array':
      return t.value.some((x) => isPattern(x, pc));
    case 'object':
      return t.value.some(([, x]) => isPattern(x, pc));
    default:
      return false;
  }
}

export function compileTerm(t: Term, pc: PlanCtx): TermC {
  const c = constValue(t);
  if (c !== undefined) return constant(c);
  switch (t.type) {
    case 'var':
      return compileVar(t.value, pc);
    case 'ref':
      return compileRef(t, pc);
    case 'array':
      return compileArray(t.value.map((x) => compileTerm(x, pc)), isPattern(t, pc));
    case 'set':
      return compileSet(t.value.map((x) => compileTerm(x, pc)));
    case 'object':
      return compileObject(
        t.value.map(([k, x]) => [compileTerm(k, pc), compileTerm(x, pc)] as [TermC, TermC]),
        isPattern(t, pc),
      );
    case 'call':
      return compileCallTerm(t.value[0]!, t.value.slice(1), pc, t.location);
    case 'arraycomprehension':
    case 'setcomprehension':
    case 'objectcomprehension':
      return compileComprehension(t, pc);
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      throw new Error(`cannot compile term ${t.type}`); // constants, compiled above
    default:
      throw new Error(`cannot compile term ${missingKind(t, t as Term).type}`);
  }
}

/** Builds a TermC from a getter (single-valued term). */
export function fromGetter(get: (fr: Frame) => Value | undefined): TermC {
  return {
    get,
    gen: (fr, k) => {
      const v = get(fr);
      return v === undefined ? false : k(v);
    },
    match: (fr, x, k) => {
      const v = get(fr);
      return v !== undefined && equal(v, x) ? k(fr) : false;
    },
    tryValue: get,
    pattern: false,
  };
}

/** Builds a TermC from a generator (multi-valued term). */
export function fromGen(gen: (fr: Frame, k: K) => boolean): TermC {
  return {
    gen,
    match: (fr, x, k) => gen(fr, (v) => (equal(v, x) ? k(fr) : false)),
    tryValue: () => undefined,
    pattern: false,
  };
}

function compileVar(name: string, pc: PlanCtx): TermC {
  if (name === 'input') return fromGetter((fr) => fr.ev.input);
  if (name === 'data') return compileDataRef([], pc);
  const s = pc.slotOf(name);
  const get = (fr: Frame) => fr.slots[s];
  return {
    get,
    gen: (fr, k) => {
      const v = fr.slots[s];
      return v === undefined ? false : k(v);
    },
    match: (fr, x, k) => {
      const cur = fr.slots[s];
      if (cur === undefined) {
        fr.slots[s] = x;
        const r = k(fr);
        fr.slots[s] = undefined;
        return r;
      }
      return equal(cur, x) ? k(fr) : false;
    },
    tryValue: get,
    pattern: !pc.isBound(name),
    slot: s,
  };
}

function compileArray(elems: TermC[], pattern: boolean): TermC {
  const n = elems.length;
  const tryValue = (fr: Frame): Value | undefined => {
    const out = new Array<Value>(n);
    for (let i = 0; i < n; i++) {
      const v = elems[i]!.tryValue(fr);
      if (v === undefined) return undefined;
      out[i] = v;
    }
    return out;
  };
  const matchFrom = (fr: Frame, v: Value[], i: number, k: Step): boolean =>
    i === n ? k(fr) : elems[i]!.match(fr, v[i]!, (f) => matchFrom(f, v, i + 1, k));
  const match = (fr: Frame, v: Value, k: Step): boolean => (Array.isArray(v) && v.length === n ? matchFrom(fr, v, 0, k) : false);
  if (elems.every((e) => e.get)) {
    const gets = elems.map((e) => e.get!);
    const get = (fr: Frame): Value | undefined => {
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) {
        const v = gets[i]!(fr);
        if (v === undefined) return undefined;
        out[i] = v;
      }
      return out;
    };
    const c = fromGetter(get);
    return pattern ? { ...c, match, tryValue, pattern } : { ...c, match, tryValue };
  }
  const genFrom = (fr: Frame, acc: Value[], i: number, k: K): boolean =>
    i === n ? k(acc.slice()) : elems[i]!.gen(fr, (v) => ((acc[i] = v), genFrom(fr, acc, i + 1, k)));
  return { gen: (fr, k) => genFrom(fr, new Array(n), 0, k), match, tryValue, pattern };
}

function compileSet(elems: TermC[]): TermC {
  const n = elems.length;
  if (elems.every((e) => e.get)) {
    return fromGetter((fr) => {
      const s = new RSet();
      for (let i = 0; i < n; i++) {
        const v = elems[i]!.get!(fr);
        if (v === undefined) return undefined;
        s.add(v);
      }
      return s;
    });
  }
  const genFrom = (fr: Frame, acc: Value[], i: number, k: K): boolean =>
    i === n ? k(RSet.from(acc)) : elems[i]!.gen(fr, (v) => ((acc[i] = v), genFrom(fr, acc, i + 1, k)));
  return fromGen((fr, k) => genFrom(fr, new Array(n), 0, k));
}

function compileObject(entries: [TermC, TermC][], pattern: boolean): TermC {
  const n = entries.length;
  const build = (pairs: [Value, Value][]): Value => {
    const o = makeObject(pairs);
    if (objectSize(o) !== pairs.length) {
      // duplicate keys with different values are a conflict; equal ones collapse
      for (const [k, v] of pairs) if (!equal(objectGet(o, k)!, v)) throw conflict('object keys must be unique');
    }
    return o;
  };
  const tryValue = (fr: Frame): Value | undefined => {
    const pairs: [Value, Value][] = [];
    for (const [kc, vc] of entries) {
      const k = kc.tryValue(fr);
      const v = vc.tryValue(fr);
      if (k === undefined || v === undefined) return undefined;
      pairs.push([k, v]);
    }
    return build(pairs);
  };
  const match = (fr: Frame, v: Value, k: Step): boolean => {
    if (!isObject(v) || objectSize(v) !== n) return false;
    const keys: Value[] = [];
    for (const [kc] of entries) {
      const kv = kc.tryValue(fr);
      if (kv === undefined) return false;
      keys.push(kv);
    }
    const from = (f: Frame, i: number): boolean => {
      if (i === n) return k(f);
      const x = objectGet(v, keys[i]!);
      return x === undefined ? false : entries[i]![1].match(f, x, (g) => from(g, i + 1));
    };
    return from(fr, 0);
  };
  if (entries.every(([a, b]) => a.get && b.get)) {
    const c = fromGetter((fr) => {
      const pairs: [Value, Value][] = [];
      for (const [kc, vc] of entries) {
        const k = kc.get!(fr);
        if (k === undefined) return undefined;
        const v = vc.get!(fr);
        if (v === undefined) return undefined;
        pairs.push([k, v]);
      }
      return build(pairs);
    });
    return { ...c, match, tryValue, pattern };
  }
  const genFrom = (fr: Frame, acc: [Value, Value][], i: number, k: K): boolean =>
    i === n
      ? k(build(acc.slice()))
      : entries[i]![0].gen(fr, (kv) => entries[i]![1].gen(fr, (vv) => ((acc[i] = [kv, vv]), genFrom(fr, acc, i + 1, k))));
  return { gen: (fr, k) => genFrom(fr, new Array(n), 0, k), match, tryValue, pattern };
}

// ---- refs ----------------------------------------------------------------------

type Stage = (fr: Frame, v: Value, k: K) => boolean;

/** Compiles the path part of a ref (after its head) into a chain of lookups/iterations. */
export function compilePath(rest: Term[], pc: PlanCtx): { stage: Stage; get?: (fr: Frame, v: Value) => Value | undefined } {
  const order = iterationFor(pc);
  let stage: Stage = (_fr, v, k) => k(v);
  const simple: ((fr: Frame) => Value | undefined)[] = [];
  let allSimple = true;
  for (let i = rest.length - 1; i >= 0; i--) {
    const t = rest[i]!;
    const next = stage;
    const c = constValue(t);
    if (c !== undefined) {
      stage = (fr, v, k) => {
        const x = lookup(v, c);
        return x === undefined ? false : next(fr, x, k);
      };
      simple.unshift(() => c);
      continue;
    }
    if (t.type === 'var' && !pc.isBound(t.value)) {
      const s = pc.slotOf(t.value);
      allSimple = false;
      stage = (fr, v, k) => {
        const cur = fr.slots[s];
        if (cur !== undefined) {
          const x = lookup(v, cur);
          return x === undefined ? false : next(fr, x, k);
        }
        const q = fr.ev.q;
        const r = order(fr)(v, (key, x) => {
          // per element, so one long iteration still meets the deadline
          q.tick();
          fr.slots[s] = key;
          return next(fr, x, k);
        });
        fr.slots[s] = undefined;
        return r;
      };
      continue;
    }
    const tc = compileTerm(t, pc);
    if (tc.get && !tc.pattern) {
      const g = tc.get;
      stage = (fr, v, k) => {
        const key = g(fr);
        if (key === undefined) return false;
        const x = lookup(v, key);
        return x === undefined ? false : next(fr, x, k);
      };
      simple.unshift(g);
      continue;
    }
    allSimple = false;
    if (tc.pattern) {
      stage = (fr, v, k) => {
        const key = tc.tryValue(fr);
        if (key !== undefined) {
          const x = lookup(v, key);
          return x === undefined ? false : next(fr, x, k);
        }
        return order(fr)(v, (key2, x) => tc.match(fr, key2, (f) => next(f, x, k)));
      };
    } else {
      stage = (fr, v, k) => tc.gen(fr, (key) => {
        const x = lookup(v, key);
        return x === undefined ? false : next(fr, x, k);
      });
    }
  }
  if (!allSimple) return { stage };
  const n = simple.length;
  const get = (fr: Frame, v: Value): Value | undefined => {
    let cur: Value | undefined = v;
    for (let i = 0; i < n && cur !== undefined; i++) {
      const key = simple[i]!(fr);
      if (key === undefined) return undefined;
      cur = lookup(cur, key);
    }
    return cur;
  };
  return { stage, get };
}

/** A head term plus a path: ref semantics over any head value. */
export function withPath(head: TermC, rest: Term[], pc: PlanCtx): TermC {
  if (rest.length === 0) return head;
  const p = compilePath(rest, pc);
  if (head.get && p.get) {
    const hg = head.get;
    const pg = p.get;
    return fromGetter((fr) => {
      const h = hg(fr);
      return h === undefined ? undefined : pg(fr, h);
    });
  }
  const stage = p.stage;
  return fromGen((fr, k) => head.gen(fr, (h) => stage(fr, h, k)));
}

function compileRef(t: RefTerm, pc: PlanCtx): TermC {
  const [head, ...rest] = t.value;
  if (!head) throw new Error('empty ref');
  if (head.type === 'var' && head.value === 'data') return compileDataRef(rest, pc);
  if (head.type === 'var' && rest.length > 0) {
    const fixed = constantPath(head.value, rest, pc) ?? slotPath(head.value, rest, pc);
    if (fixed) return fixed;
  }
  const h = compileTerm(head, pc);
  // a bare var head that is unbound is a pattern, but as a ref head it must be a value
  return withPath({ ...h, pattern: false }, rest, pc);
}

/**
 * `x.a.b` or `input.a[0]`: a variable (or input) followed by constant keys, the commonest
 * ref, read by one closure (no getter per key or for the head).
 */
function constantPath(name: string, rest: Term[], pc: PlanCtx): TermC | undefined {
  const keys: Value[] = [];
  for (const t of rest) {
    const c = constValue(t);
    if (c === undefined) return undefined;
    keys.push(c);
  }
  const n = keys.length;
  if (keys.every((k) => typeof k === 'string')) {
    const read = pathReader(name, keys as string[]);
    if (name === 'input') return fromGetter((fr) => read(fr.ev.input));
    const s = pc.slotOf(name);
    return fromGetter((fr) => read(fr.slots[s]));
  }
  if (name === 'input') return fromGetter((fr) => lookupPath(fr.ev.input, keys, n));
  const s = pc.slotOf(name);
  return fromGetter((fr) => lookupPath(fr.slots[s], keys, n));
}

/**
 * `path[i]`, `x[k].name`: a variable (or input) followed by keys that are constants or
 * variables bound before the ref, read from their slots by one closure (not a getter per key
 * and one for the head). Each key is looked up as the general path does (`lookup`).
 */
function slotPath(name: string, rest: Term[], pc: PlanCtx): TermC | undefined {
  const n = rest.length;
  const slots: number[] = [];
  const consts: Value[] = [];
  let vars = 0;
  for (const t of rest) {
    const c = constValue(t);
    if (c !== undefined) {
      slots.push(-1);
      consts.push(c);
    } else if (t.type === 'var' && t.value !== 'input' && t.value !== 'data' && pc.isBound(t.value)) {
      slots.push(pc.slotOf(t.value));
      consts.push(null);
      vars++;
    } else return undefined;
  }
  if (vars === 0) return undefined;
  const head: (fr: Frame) => Value | undefined = name === 'input' ? (fr) => fr.ev.input : ((s) => (fr: Frame) => fr.slots[s])(pc.slotOf(name));
  if (n === 1) {
    const k = slots[0]!;
    if (name === 'input')
      return fromGetter((fr) => {
        const key = fr.slots[k];
        return key === undefined ? undefined : lookup(fr.ev.input, key);
      });
    const h = pc.slotOf(name);
    return fromGetter((fr) => {
      const key = fr.slots[k];
      return key === undefined ? undefined : lookup(fr.slots[h], key);
    });
  }
  return fromGetter((fr) => {
    let v = head(fr);
    for (let i = 0; i < n && v !== undefined; i++) {
      const s = slots[i]!;
      const key = s < 0 ? consts[i]! : fr.slots[s];
      if (key === undefined) return undefined;
      v = lookup(v, key);
    }
    return v;
  });
}

function lookupPath(v: Value | undefined, keys: Value[], n: number): Value | undefined {
  for (let i = 0; i < n && v !== undefined; i++) v = lookup(v, keys[i]!);
  return v;
}

export function valueKey(v: Value): string {
  return typeof v === 'string' ? 's' + v : toJSONText(v);
}

export { RObject, objectEntries };
