// OPA's JSON form of the AST: what GET /v1/policies returns under `ast` and what
// `opa parse --format json` prints. Locations are left out unless asked for, as in
// OPA's default marshalling options; comments are always included.

import type { Annotations, Body, Expr, Head, Import, Location, Module, Rule, TemplateString, Term, With } from './ast.js';
import { missingKind } from './visit.js';

export interface JSONOptions {
  /** Include `location` on terms, expressions, rules, heads, imports and the package. */
  includeLocation?: boolean;
  /** Include `text` (base64, as OPA) in locations. */
  includeLocationText?: boolean;
}

function locJSON(l: Location | undefined, o: JSONOptions): unknown {
  if (!l) return undefined;
  const out: Record<string, unknown> = { file: l.file, row: l.row, col: l.col };
  if (o.includeLocationText) out['text'] = Buffer.from(l.text, 'utf8').toString('base64');
  return out;
}

function withLoc(obj: Record<string, unknown>, l: Location | undefined, o: JSONOptions): Record<string, unknown> {
  if (o.includeLocation && l) obj['location'] = locJSON(l, o);
  return obj;
}

export function termToJSON(t: Term, o: JSONOptions = {}): unknown {
  let value: unknown;
  switch (t.type) {
    case 'null':
      return withLoc({ type: 'null' }, t.location, o);
    case 'boolean':
    case 'string':
    case 'var':
      value = t.value;
      break;
    case 'number': {
      // JSON numbers: keep the literal's value (a double; exact text is lost only past 2^53).
      const n = Number(t.value);
      value = Number.isFinite(n) ? n : t.value;
      break;
    }
    case 'call':
      // A template string is its own term type in OPA's AST.
      if (t.template) return withLoc({ type: 'templatestring', value: templateToJSON(t.template, o) }, t.location, o);
      value = t.value.map((x) => termToJSON(x, o));
      break;
    case 'ref':
    case 'array':
    case 'set':
      value = t.value.map((x) => termToJSON(x, o));
      break;
    case 'object':
      value = t.value.map(([k, v]) => [termToJSON(k, o), termToJSON(v, o)]);
      break;
    case 'arraycomprehension':
    case 'setcomprehension':
      value = { term: termToJSON(t.value.term, o), body: bodyToJSON(t.value.body, o) };
      break;
    case 'objectcomprehension':
      value = { key: termToJSON(t.value.key, o), value: termToJSON(t.value.value, o), body: bodyToJSON(t.value.body, o) };
      break;
    default:
      missingKind(t, undefined);
  }
  return withLoc({ type: t.type, value }, t.location, o);
}

function templateToJSON(ts: TemplateString, o: JSONOptions): unknown {
  const out: Record<string, unknown> = {};
  if (ts.multiLine) out['multi_line'] = true;
  out['parts'] = ts.parts.map((p) => ('terms' in p ? exprToJSON(p, o) : termToJSON(p, o)));
  return out;
}

function withJSON(w: With, o: JSONOptions): unknown {
  return withLoc({ target: termToJSON(w.target, o), value: termToJSON(w.value, o) }, w.location, o);
}

export function exprToJSON(e: Expr, o: JSONOptions = {}): unknown {
  const out: Record<string, unknown> = {};
  if (e.negated) out['negated'] = true;
  if (e.generated) out['generated'] = true;
  const terms = e.terms;
  if (e.notBlock) out['terms'] = { type: 'not', explicit_body: true, body: bodyToJSON(e.notBlock, o) };
  else if (Array.isArray(terms)) out['terms'] = terms.map((t) => termToJSON(t, o));
  else if (terms.type === 'somedecl') {
    out['terms'] = withLoc({ symbols: terms.symbols.map((t) => termToJSON(t, o)) }, terms.location, o);
  } else if (terms.type === 'every') {
    const ev: Record<string, unknown> = {};
    if (terms.key) ev['key'] = termToJSON(terms.key, o);
    ev['value'] = termToJSON(terms.value, o);
    ev['domain'] = termToJSON(terms.domain, o);
    ev['body'] = bodyToJSON(terms.body, o);
    out['terms'] = withLoc(ev, terms.location, o);
  } else out['terms'] = termToJSON(terms, o);
  out['index'] = e.index;
  if (e.with && e.with.length) out['with'] = e.with.map((w) => withJSON(w, o));
  return withLoc(out, e.location, o);
}

export function bodyToJSON(b: Body, o: JSONOptions = {}): unknown[] {
  return b.map((e) => exprToJSON(e, o));
}

function headToJSON(h: Head, o: JSONOptions): unknown {
  const out: Record<string, unknown> = {};
  if (h.name) out['name'] = h.name;
  out['ref'] = h.ref.map((t) => termToJSON(t, o));
  if (h.args && h.args.length) out['args'] = h.args.map((t) => termToJSON(t, o));
  if (h.key) out['key'] = termToJSON(h.key, o);
  if (h.value) out['value'] = termToJSON(h.value, o);
  if (h.assign) out['assign'] = true;
  return withLoc(out, h.location, o);
}

export function annotationsToJSON(a: Annotations, o: JSONOptions = {}): unknown {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) {
    if (k === 'location' || v === undefined) continue;
    out[k] = v;
  }
  return withLoc(out, a.location, o);
}

export function ruleToJSON(r: Rule, o: JSONOptions = {}): unknown {
  const out: Record<string, unknown> = {};
  if (r.default) out['default'] = true;
  out['head'] = headToJSON(r.head, o);
  out['body'] = bodyToJSON(r.body, o);
  if (r.else) out['else'] = ruleToJSON(r.else, o);
  if (r.annotations && r.annotations.length) out['annotations'] = r.annotations.map((a) => annotationsToJSON(a, o));
  return withLoc(out, r.location, o);
}

function importToJSON(i: Import, o: JSONOptions): unknown {
  const out: Record<string, unknown> = { path: termToJSON(i.path, o) };
  if (i.alias) out['alias'] = i.alias;
  return withLoc(out, i.location, o);
}

export function moduleToJSON(m: Module, o: JSONOptions = {}): unknown {
  const out: Record<string, unknown> = {
    package: withLoc({ path: m.package.path.map((t) => termToJSON(t, o)) }, m.package.location, o),
  };
  if (m.imports.length) out['imports'] = m.imports.map((i) => importToJSON(i, o));
  if (m.annotations.length) out['annotations'] = m.annotations.map((a) => annotationsToJSON(a, o));
  out['rules'] = m.rules.map((r) => ruleToJSON(r, o));
  if (m.comments.length) {
    out['comments'] = m.comments.map((c) => ({
      Text: Buffer.from(c.text, 'utf8').toString('base64'),
      Location: { file: c.location?.file ?? '', row: c.location?.row ?? 0, col: c.location?.col ?? 0, text: Buffer.from(c.location?.text ?? '', 'utf8').toString('base64') },
    }));
  }
  return out;
}
