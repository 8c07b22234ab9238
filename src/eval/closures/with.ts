// `with`: runs one expression under replaced input, data paths, functions or built-ins.
// The replacement is a new EvalCtx (so memoised values never leak across it); the rest
// of the body runs under the original one again.

import type { Expr, Term } from '../../lang/ast.js';
import { refName } from '../../compiler/terms.js';
import { builtinIn } from '../builtins/registry.js';
import { EvalCtx, type Frame, type Mock, type OverrideNode } from '../context.js';
import { isPlainObject, newPlainObject, type PlainObject, type Value } from '../../value/index.js';
import type { PlanCtx } from './ctx.js';
import { compileTerm } from './terms.js';
import type { Step, TermC } from './types.js';

type Mod =
  | { kind: 'input'; path: string[]; val: TermC }
  | { kind: 'data'; path: string[]; val: TermC }
  | { kind: 'mock'; key: string; mock?: Mock; val?: TermC };

function strings(ts: Term[]): string[] {
  return ts.map((t) => (t.type === 'string' ? t.value : t.type === 'var' ? t.value : JSON.stringify((t as { value: unknown }).value)));
}

function functionMock(value: Term, pc: PlanCtx): Mock | undefined {
  if (value.type === 'ref' && value.value[0]?.type === 'var' && value.value[0].value === 'data') {
    const node = pc.root.find(strings(value.value.slice(1)));
    if (node?.isFunction) return { kind: 'function', node };
    return undefined;
  }
  if (value.type === 'var' || value.type === 'ref') {
    const name = refName(value);
    if (name && !(value.type === 'var' && pc.slots.has(name))) {
      const def = builtinIn(pc.root, name);
      if (def) return { kind: 'builtin', def };
    }
  }
  return undefined;
}

export function compileWith(e: Expr, pc: PlanCtx, next: Step, compileInner: (e: Expr, k: Step) => Step): Step {
  const mods: Mod[] = [];
  for (const w of e.with!) {
    const t = w.target;
    const terms = t.type === 'ref' ? t.value : [t];
    const head = terms[0]!;
    if (head.type === 'var' && head.value === 'input') {
      mods.push({ kind: 'input', path: strings(terms.slice(1)), val: compileTerm(w.value, pc) });
      continue;
    }
    if (head.type === 'var' && head.value === 'data') {
      const path = strings(terms.slice(1));
      const node = pc.root.find(path);
      if (node?.isFunction) {
        const fm = functionMock(w.value, pc);
        mods.push(fm ? { kind: 'mock', key: 'data.' + path.join('.'), mock: fm } : { kind: 'mock', key: 'data.' + path.join('.'), val: compileTerm(w.value, pc) });
      } else mods.push({ kind: 'data', path, val: compileTerm(w.value, pc) });
      continue;
    }
    const name = refName(t) ?? '';
    const fm = functionMock(w.value, pc);
    mods.push(fm ? { kind: 'mock', key: name, mock: fm } : { kind: 'mock', key: name, val: compileTerm(w.value, pc) });
  }
  const restore: Step = (fr) => {
    const w = fr.ev;
    fr.ev = w.parent!;
    try {
      return next(fr);
    } finally {
      fr.ev = w;
    }
  };
  const inner = compileInner({ ...e, with: undefined }, restore);
  // values may iterate: evaluate every combination
  const n = mods.length;
  const apply = (fr: Frame, i: number, input: Value | undefined, ov: OverrideNode | null, mocks: Map<string, Mock> | null): boolean => {
    if (i === n) {
      const outer = fr.ev;
      const ev = new EvalCtx(outer.q, input, outer.data, ov, mocks, outer);
      fr.ev = ev;
      try {
        return inner(fr);
      } finally {
        fr.ev = outer;
      }
    }
    const m = mods[i]!;
    if (m.kind === 'mock' && m.mock) {
      const mm = new Map(mocks ?? []);
      mm.set(m.key, m.mock);
      return apply(fr, i + 1, input, ov, mm);
    }
    return m.val!.gen(fr, (v) => {
      if (m.kind === 'input') return apply(fr, i + 1, setPath(input, m.path, v), ov, mocks);
      if (m.kind === 'data') return apply(fr, i + 1, input, addOverride(ov, m.path, v), mocks);
      const mm = new Map(mocks ?? []);
      mm.set(m.key, { kind: 'value', value: v });
      return apply(fr, i + 1, input, ov, mm);
    });
  };
  return (fr) => apply(fr, 0, fr.ev.input, fr.ev.overrides, fr.ev.mocks);
}

export function setPath(doc: Value | undefined, path: string[], v: Value): Value {
  if (path.length === 0) return v;
  const o: PlainObject = newPlainObject();
  if (isPlainObject(doc)) for (const k of Object.keys(doc)) o[k] = doc[k]!;
  o[path[0]!] = setPath(o[path[0]!], path.slice(1), v);
  return o;
}

function cloneNode(n: OverrideNode): OverrideNode {
  return { value: n.value, children: new Map(n.children) };
}

export function addOverride(root: OverrideNode | null, path: string[], v: Value): OverrideNode {
  const r: OverrideNode = root ? cloneNode(root) : { children: new Map() };
  let cur = r;
  for (let i = 0; i < path.length; i++) {
    const p = path[i]!;
    if (cur.value !== undefined) {
      // replacing inside an already replaced value
      cur.value = setPath(cur.value, path.slice(i), v);
      return r;
    }
    const c = cur.children.get(p);
    const nc: OverrideNode = c ? cloneNode(c) : { children: new Map() };
    cur.children.set(p, nc);
    cur = nc;
  }
  cur.value = v;
  cur.children.clear();
  return r;
}
