// Type checks of built-in calls whose arguments have a type known at compile time
// (literals and composites of literals), as OPA's type checker reports them:
//   rego_type_error: count: invalid argument(s)
//   	have: (number)
//   	want: (any<string, array[any], object[any: any], set[any]>)
// Arguments whose type depends on data or input count as `any` and always fit, so only
// calls that can never succeed are rejected.

import type { Body, RegoErrorDetail, Term } from '../lang/ast.js';
import { missingKind } from '../lang/visit.js';
import type { TypeDecl } from './builtins/types.js';
import { declarationIn, type BuiltinOverlay } from './builtins/index.js';
import { typeError } from './errors.js';
import { refName } from './terms.js';
import type { CompiledRule } from './tree.js';
import { walkBody, walkTerm } from './walk.js';

const ANY: TypeDecl = { type: 'any' };

/** The static type of a term, or undefined when only evaluation can tell. */
export function typeOf(t: Term): TypeDecl | undefined {
  switch (t.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return { type: t.type };
    case 'array':
      return { type: 'array', static: t.value.map((x) => typeOf(x) ?? ANY) };
    case 'set': {
      const of = union(t.value.map((x) => typeOf(x) ?? ANY));
      return { type: 'set', of };
    }
    case 'object': {
      if (t.value.every(([k]) => k.type === 'string'))
        return { type: 'object', static: t.value.map(([k, x]) => ({ key: (k as { value: string }).value, value: typeOf(x) ?? ANY })) };
      return { type: 'object', dynamic: { key: union(t.value.map(([k]) => typeOf(k) ?? ANY)), value: union(t.value.map(([, x]) => typeOf(x) ?? ANY)) } };
    }
    case 'arraycomprehension':
      return { type: 'array', dynamic: ANY };
    case 'setcomprehension':
      return { type: 'set', of: ANY };
    case 'objectcomprehension':
      return { type: 'object', dynamic: { key: ANY, value: ANY } };
    case 'var':
    case 'ref':
    case 'call':
      return undefined;
    default:
      return missingKind(t, undefined);
  }
}

/** One type for several: the distinct ones as a union, any when there are none or one is any. */
export function union(ts: TypeDecl[]): TypeDecl {
  const seen = new Map<string, TypeDecl>();
  for (const t of ts) seen.set(typeString(t), t);
  const all = [...seen.values()];
  if (all.length === 0 || all.some((t) => t.type === 'any' && !t.of?.length)) return ANY;
  return all.length === 1 ? all[0]! : { type: 'any', of: all };
}

/** Whether a value of type `have` may be passed where `want` is declared. */
export function fits(have: TypeDecl, want: TypeDecl): boolean {
  if (want.type === 'any') return !want.of || want.of.some((w) => fits(have, w));
  if (have.type === 'any') return !have.of || have.of.some((h) => fits(h, want));
  if (have.type !== want.type) return false;
  switch (have.type) {
    case 'array': {
      const w = want as Extract<TypeDecl, { type: 'array' }>;
      const items = have.static ?? [];
      if (w.static) {
        if (items.length < w.static.length) return have.dynamic !== undefined || false;
        if (items.length > w.static.length && !w.dynamic) return false;
        return items.every((x, i) => fits(x, w.static![i] ?? w.dynamic ?? ANY));
      }
      return items.every((x) => fits(x, w.dynamic ?? ANY)) && (!have.dynamic || fits(have.dynamic, w.dynamic ?? ANY));
    }
    case 'set':
      return fits(have.of, (want as Extract<TypeDecl, { type: 'set' }>).of);
    case 'object': {
      const w = want as Extract<TypeDecl, { type: 'object' }>;
      for (const p of have.static ?? []) {
        const sw = w.static?.find((x) => x.key === p.key);
        if (sw) {
          if (!fits(p.value, sw.value)) return false;
        } else if (w.dynamic) {
          if (!fits({ type: 'string' }, w.dynamic.key) || !fits(p.value, w.dynamic.value)) return false;
        } else return false;
      }
      if (have.dynamic && w.dynamic) return fits(have.dynamic.key, w.dynamic.key) && fits(have.dynamic.value, w.dynamic.value);
      return true;
    }
    default:
      return true;
  }
}

/** OPA's rendering of a type (types.Sprint). */
export function typeString(t: TypeDecl): string {
  switch (t.type) {
    case 'any':
      return t.of && t.of.length ? `any<${t.of.map(typeString).join(', ')}>` : 'any';
    case 'array': {
      let out = 'array';
      if (t.static?.length) out += `<${t.static.map(typeString).join(', ')}>`;
      if (t.dynamic) out += `[${typeString(t.dynamic)}]`;
      return out;
    }
    case 'set':
      return `set[${typeString(t.of)}]`;
    case 'object': {
      let out = 'object';
      if (t.static?.length) out += `<${t.static.map((p) => `${p.key}: ${typeString(p.value)}`).join(', ')}>`;
      if (t.dynamic) out += `[${typeString(t.dynamic.key)}: ${typeString(t.dynamic.value)}]`;
      return out;
    }
    case 'function':
      return `(${(t.args ?? []).map(typeString).join(', ')}) => ${t.result ? typeString(t.result) : 'void'}`;
    default:
      return t.type;
  }
}

/** Checks every built-in call of a rule body (and head) with compile-time-known argument types. */
export function checkConstantArgs(rule: CompiledRule, errors: RegoErrorDetail[], overlay?: BuiltinOverlay): void {
  const visit = constantArgsVisitor(errors, overlay);
  walkBody(rule.body, visit);
  for (const t of [rule.key, rule.value, ...rule.suffix]) if (t) walkTerm(t, visit);
}

/** The same check over a query's body: OPA type-checks queries as it does rules (`upper(1)` is a type error, not undefined). */
export function checkConstantArgsInBody(body: Body, errors: RegoErrorDetail[], overlay?: BuiltinOverlay): void {
  walkBody(body, constantArgsVisitor(errors, overlay));
}

function constantArgsVisitor(errors: RegoErrorDetail[], overlay?: BuiltinOverlay) {
  return {
    call(op: Term, args: Term[], at: { location?: Term['location'] }) {
      const name = refName(op);
      if (!name || name.startsWith('data.')) return;
      const b = declarationIn(overlay, name);
      const want = b?.decl.args;
      if (!b || !want || b.decl.variadic) return;
      const inputs = args.slice(0, want.length);
      const have = inputs.map((a) => typeOf(a));
      if (have.every((h, i) => !h || fits(h, want[i]!))) return;
      errors.push(
        typeError(`${name}: invalid argument(s)`, have.map((h) => typeString(h ?? ANY)), `(${want.map(typeString).join(', ')})`, at.location ?? op.location),
      );
    },
  };
}
