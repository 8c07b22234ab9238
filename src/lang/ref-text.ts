// Identifiers, and a data ref as OPA prints it from path segments:
// ["a", "b c", 0] -> data.a["b c"][0].

import type { Value } from '../value/index.js';

/** A Rego identifier (a var, or a ref segment written after a dot). */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function refText(ref: Value[], head = 'data'): string {
  let out = head;
  for (const s of ref) {
    if (typeof s === 'string' && IDENTIFIER.test(s)) out += '.' + s;
    else out += '[' + (typeof s === 'string' ? JSON.stringify(s) : String(s)) + ']';
  }
  return out;
}
