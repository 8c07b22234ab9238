// Prints a ref as OPA does in messages: `data.a.b`, `data.a["b-c"]`, `data.a[x]`, `data.a[1]`.

import type { Term } from '../lang/ast.js';
import { IDENTIFIER } from '../lang/index.js';

const IDENT = IDENTIFIER;

export function refString(ref: Term[], original?: (name: string) => string): string {
  let out = '';
  ref.forEach((t, i) => {
    if (i === 0) out += t.type === 'var' ? (original?.(t.value) ?? t.value) : t.type === 'string' ? t.value : JSON.stringify((t as { value?: unknown }).value);
    else if (t.type === 'string') out += IDENT.test(t.value) ? `.${t.value}` : `[${JSON.stringify(t.value)}]`;
    else if (t.type === 'var') out += `[${original?.(t.value) ?? t.value}]`;
    else if (t.type === 'number') out += `[${t.value}]`;
    else if (t.type === 'boolean') out += `[${t.value}]`;
    else if (t.type === 'null') out += '[null]';
    else out += '[...]';
  });
  return out;
}
