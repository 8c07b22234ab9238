// Test helpers: compact string forms of parsed terms and expressions, so that tests
// can state the expected tree in one line.
import type { Expr, Term } from '../../src/lang/index.js';

export function show(t: Term): string {
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
      return 'ref(' + t.value.map(show).join(', ') + ')';
    case 'array':
      return '[' + t.value.map(show).join(', ') + ']';
    case 'set':
      return 'set(' + t.value.map(show).join(', ') + ')';
    case 'object':
      return '{' + t.value.map(([k, v]) => show(k) + ': ' + show(v)).join(', ') + '}';
    case 'call':
      return 'call(' + t.value.map(show).join(', ') + ')';
    case 'arraycomprehension':
      return `[${show(t.value.term)} | ${t.value.body.map(showExpr).join('; ')}]`;
    case 'setcomprehension':
      return `{${show(t.value.term)} | ${t.value.body.map(showExpr).join('; ')}}`;
    case 'objectcomprehension':
      return `{${show(t.value.key)}: ${show(t.value.value)} | ${t.value.body.map(showExpr).join('; ')}}`;
  }
}

export function showExpr(e: Expr): string {
  let s: string;
  const t = e.terms;
  if (Array.isArray(t)) s = 'expr(' + t.map(show).join(', ') + ')';
  else if (t.type === 'somedecl') s = 'some(' + t.symbols.map(show).join(', ') + ')';
  else if (t.type === 'every') s = `every(${t.key ? show(t.key) : '-'}, ${show(t.value)}, ${show(t.domain)}, {${t.body.map(showExpr).join('; ')}})`;
  else s = show(t);
  if (e.negated) s = 'not ' + s;
  if (e.with) s += e.with.map((w) => ` with ${show(w.target)} as ${show(w.value)}`).join('');
  return s;
}
