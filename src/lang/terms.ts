// Small helpers over terms shared by the parser stages: copying, ground checks and
// OPA's textual form of refs used in error messages.

import type { Head, Location, TemplateString, Term } from './ast.js';
import { IDENTIFIER } from './ref-text.js';
import { everyChildTerm, missingKind } from './visit.js';

/** No var outside closures (a comprehension counts as ground, as in OPA). */
export function isGround(t: Term): boolean {
  return t.type !== 'var' && everyChildTerm(t, isGround);
}

/** Deep copy of a term; with `loc`, every location in the copy is replaced by it. */
export function copyTerm(t: Term, loc?: Location): Term {
  const l = loc ?? t.location;
  switch (t.type) {
    case 'ref':
    case 'array':
    case 'set':
    case 'call':
      return { type: t.type, value: t.value.map((x) => copyTerm(x, loc)), location: l } as Term;
    case 'object':
      return { type: 'object', value: t.value.map(([k, v]) => [copyTerm(k, loc), copyTerm(v, loc)] as [Term, Term]), location: l };
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
    case 'var':
    // a closure's head and body are shared, not copied
    case 'arraycomprehension':
    case 'setcomprehension':
    case 'objectcomprehension':
      return { ...t, location: l } as Term;
    default:
      return missingKind(t, { ...(t as Term), location: l } as Term);
  }
}

export function copyHead(h: Head, loc?: Location): Head {
  const out: Head = { ref: h.ref.map((t) => copyTerm(t, loc)) };
  if (h.name !== undefined) out.name = h.name;
  if (h.args) out.args = h.args.map((t) => copyTerm(t, loc));
  if (h.key) out.key = copyTerm(h.key, loc);
  if (h.value) out.value = copyTerm(h.value, loc);
  if (h.assign) out.assign = true;
  out.location = loc ?? h.location;
  return out;
}

/** OPA's String() of a ref, e.g. `data.a["b-c"][x]`, used in messages. */
export function refString(ref: Term[]): string {
  let s = '';
  ref.forEach((t, i) => {
    if (i === 0) s += termString(t);
    else if (t.type === 'string' && IDENTIFIER.test(t.value)) s += '.' + t.value;
    else s += '[' + termString(t) + ']';
  });
  return s;
}

/** OPA's String() of a template string: always the `$"..."` form. */
function templateString(ts: TemplateString): string {
  let s = '$"';
  for (const p of ts.parts) {
    if ('terms' in p) {
      const terms = p.terms;
      const inner = Array.isArray(terms) ? termString({ type: 'call', value: terms }) : terms.type === 'somedecl' || terms.type === 'every' ? '' : termString(terms);
      s += '{' + inner + '}';
    } else if (p.type === 'string') s += escapeTemplateText(JSON.stringify(p.value).slice(1, -1));
    else s += termString(p);
  }
  return s + '"';
}

/** Template text as written: every literal `{` escaped (JSON escaping never leaves one). */
export function escapeTemplateText(s: string): string {
  return s.replaceAll('{', '\\{');
}

export function termString(t: Term): string {
  switch (t.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return String(t.value);
    case 'number':
      return t.value;
    case 'string':
      return JSON.stringify(t.value);
    case 'var':
      return t.value;
    case 'ref':
      return refString(t.value);
    case 'array':
      return '[' + t.value.map(termString).join(', ') + ']';
    case 'set':
      return t.value.length === 0 ? 'set()' : '{' + t.value.map(termString).join(', ') + '}';
    case 'object':
      return '{' + t.value.map(([k, v]) => termString(k) + ': ' + termString(v)).join(', ') + '}';
    case 'call':
      if (t.template) return templateString(t.template);
      return termString(t.value[0]!) + '(' + t.value.slice(1).map(termString).join(', ') + ')';
    case 'arraycomprehension':
      return '[' + termString(t.value.term) + ' | ...]';
    case 'setcomprehension':
      return '{' + termString(t.value.term) + ' | ...}';
    case 'objectcomprehension':
      return '{' + termString(t.value.key) + ': ' + termString(t.value.value) + ' | ...}';
  }
}
