// Values printed in Rego syntax, as OPA's String() prints them: used by sprintf("%v"),
// print(), and error messages.

import { BigNum, numberText } from './number.js';
import { RSet } from './set.js';
import { RObject, sortedKeys } from './object.js';
import type { PlainObject, Value } from './types.js';

export function toRegoString(v: Value): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return numberText(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof BigNum) return v.text;
  if (Array.isArray(v)) return '[' + v.map(toRegoString).join(', ') + ']';
  if (v instanceof RSet) return v.size === 0 ? 'set()' : '{' + v.values().map(toRegoString).join(', ') + '}';
  if (v instanceof RObject) return '{' + v.entries().map(([k, x]) => toRegoString(k) + ': ' + toRegoString(x)).join(', ') + '}';
  const o = v as PlainObject;
  return '{' + sortedKeys(o).map((k) => JSON.stringify(k) + ': ' + toRegoString(o[k]!)).join(', ') + '}';
}
