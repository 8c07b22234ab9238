// rego.metadata.chain() and rego.metadata.rule(): like OPA (RewriteRegoMetadataCalls), the
// compiler replaces each call in a rule by the constant it denotes for that rule, so the
// evaluator needs no notion of "the rule being evaluated" and the values cost nothing at
// run time. The chain runs from the rule outwards:
//   rule annotations (or just the rule's path), document annotations for the rule's path,
//   package annotations, then subpackages annotations from the package up to the root.

import type { Annotations, Body, Expr, Module, Term } from '../lang/ast.js';
import { ARGS_ONLY, mapChildTerms } from '../lang/visit.js';
import { packagePath } from './resolve.js';
import { refName } from './terms.js';
import type { CompiledRule } from './tree.js';

const CHAIN = 'rego.metadata.chain';
const RULE = 'rego.metadata.rule';

/** OPA's object form of one annotation block (no location). */
export function annotationObject(a: Annotations): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) {
    if (k === 'location' || v === undefined) continue;
    if (k === 'schemas') out[k] = (v as { path?: unknown; schema?: unknown; definition?: unknown }[]).map(schemaObject);
    else out[k] = v;
  }
  return out;
}

function schemaObject(s: { path?: unknown; schema?: unknown; definition?: unknown }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof s.path === 'string') out['path'] = s.path.split('.');
  if (typeof s.schema === 'string') out['schema'] = s.schema.split('.');
  if (s.definition !== undefined) out['definition'] = s.definition;
  return out;
}

interface Link {
  path: string[];
  annotations?: Annotations;
}

/** Annotations of every module, indexed for chain lookups. */
class AnnotationIndex {
  readonly document = new Map<string, Annotations>();
  readonly pkg = new Map<string, Annotations>();
  readonly subpackages = new Map<string, Annotations>();

  constructor(modules: Module[], rules: CompiledRule[]) {
    for (const m of modules) {
      const key = packagePath(m).join('\u0000');
      for (const a of m.annotations) {
        if (a.scope === 'package' && !this.pkg.has(key)) this.pkg.set(key, a);
        if (a.scope === 'subpackages' && !this.subpackages.has(key)) this.subpackages.set(key, a);
      }
    }
    for (const r of rules)
      for (const a of r.rule.annotations ?? [])
        if (a.scope === 'document') {
          const key = r.path.join('\u0000');
          if (!this.document.has(key)) this.document.set(key, a);
        }
  }

  chain(r: CompiledRule): Link[] {
    const own = ruleScoped(r);
    const out: Link[] = own.length ? own.map((a) => ({ path: r.path, annotations: a })) : [{ path: r.path }];
    const doc = this.document.get(r.path.join('\u0000'));
    if (doc) out.push({ path: r.path, annotations: doc });
    const pkg = packagePath(r.module);
    const p = this.pkg.get(pkg.join('\u0000'));
    if (p) out.push({ path: pkg, annotations: p });
    for (let i = pkg.length; i >= 0; i--) {
      const sp = this.subpackages.get(pkg.slice(0, i).join('\u0000'));
      if (sp) out.push({ path: pkg.slice(0, i), annotations: sp });
    }
    return out;
  }
}

/** Rule-scope annotations of a rule, closest to the rule first. */
function ruleScoped(r: CompiledRule): Annotations[] {
  return (r.rule.annotations ?? []).filter((a) => a.scope === 'rule').sort((a, b) => (b.location?.row ?? 0) - (a.location?.row ?? 0));
}

/** A JSON value as an AST term. */
function constTerm(v: unknown, location: Term['location']): Term {
  if (v === null || v === undefined) return { type: 'null', location };
  if (typeof v === 'boolean') return { type: 'boolean', value: v, location };
  if (typeof v === 'number') return { type: 'number', value: String(v), location };
  if (typeof v === 'string') return { type: 'string', value: v, location };
  if (Array.isArray(v)) return { type: 'array', value: v.map((x) => constTerm(x, location)), location };
  return {
    type: 'object',
    value: Object.entries(v as Record<string, unknown>).map(([k, x]) => [{ type: 'string', value: k, location }, constTerm(x, location)] as [Term, Term]),
    location,
  };
}

export function rewriteMetadataCalls(rules: CompiledRule[], modules: Module[]): void {
  let index: AnnotationIndex | undefined;
  for (const top of rules)
    for (let r: CompiledRule | undefined = top; r; r = r.else) {
      const x = r;
      if (!mentions(x)) continue;
      index ??= new AnnotationIndex(modules, rules);
      const idx = index;
      const value = (name: string, loc: Term['location']): Term => {
        if (name === CHAIN)
          return constTerm(
            idx.chain(x).map((l) => (l.annotations ? { path: l.path, annotations: annotationObject(l.annotations) } : { path: l.path })),
            loc,
          );
        const own = ruleScoped(x)[0];
        return constTerm(own ? annotationObject(own) : {}, loc);
      };
      x.body = rewriteBody(x.body, value);
      if (x.value) x.value = rewriteTerm(x.value, value);
      if (x.key) x.key = rewriteTerm(x.key, value);
    }
}

type Resolve = (name: string, loc: Term['location']) => Term;

function isMetaCall(op: Term | undefined): string | undefined {
  const n = op ? refName(op) : undefined;
  return n === CHAIN || n === RULE ? n : undefined;
}

function rewriteBody(body: Body, value: Resolve): Body {
  return body.map((e) => rewriteExpr(e, value));
}

function rewriteExpr(e: Expr, value: Resolve): Expr {
  const t = e.terms;
  if (Array.isArray(t)) {
    const name = isMetaCall(t[0]);
    if (name) {
      const c = value(name, e.location);
      // `rego.metadata.chain(x)` binds its output; alone, the call is a (truthy) value.
      if (t.length === 2) return { ...e, terms: [{ type: 'ref', value: [{ type: 'var', value: 'eq' }] }, t[1]!, c] };
      return { ...e, terms: c };
    }
    return { ...e, terms: [t[0]!, ...t.slice(1).map((x) => rewriteTerm(x, value))] };
  }
  const k = (t as { type: string }).type;
  if (k === 'somedecl') return e;
  if (k === 'every') {
    const ev = t as Extract<Expr['terms'], { type: 'every' }>;
    return { ...e, terms: { ...ev, domain: rewriteTerm(ev.domain, value), body: rewriteBody(ev.body, value) } };
  }
  return { ...e, terms: rewriteTerm(t as Term, value) };
}

function rewriteTerm(t: Term, value: Resolve): Term {
  if (t.type === 'call') {
    const name = isMetaCall(t.value[0]);
    if (name && t.value.length === 1) return value(name, t.location);
  }
  return mapChildTerms(
    t,
    (x) => rewriteTerm(x, value),
    ARGS_ONLY,
    (b) => rewriteBody(b, value),
  );
}

function mentions(r: CompiledRule): boolean {
  return JSON.stringify([r.body, r.value ?? null, r.key ?? null]).includes('"metadata"');
}
