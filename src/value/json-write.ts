// Conversions between Rego values and JSON, as OPA serialises them: sets become arrays
// in sorted order, non-string object keys are written in Rego syntax, and numbers keep
// every digit (BigNum text is written raw).

import { BigNum, numberText } from './number.js';
import { RSet } from './set.js';
import { RObject, isPlainObject, newPlainObject, sortedKeys } from './object.js';
import type { PlainObject, Value } from './types.js';

/** Plain JS data for library callers. A BigNum becomes the nearest double (or its text when it has none). */
export function toJS(v: Value): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const c = toJS(v[i]!);
      if (c !== v[i] && !out) out = v.slice(0, i) as unknown[];
      if (out) out.push(c);
    }
    return out ?? v;
  }
  if (v instanceof BigNum) {
    const d = v.toDouble();
    return Number.isFinite(d) ? d : v.text;
  }
  if (v instanceof RSet) return v.values().map(toJS);
  if (v instanceof RObject) {
    const o: Record<string, unknown> = newPlainObject();
    for (const [k, x] of v.entries()) o[typeof k === 'string' ? k : toJSONText(k)] = toJS(x);
    return o;
  }
  // Plain object: return it unchanged unless a member needs converting.
  let out: Record<string, unknown> | undefined;
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    const c = toJS(v[k]!);
    if (c !== v[k] && !out) {
      out = newPlainObject();
      for (const j in v) if (Object.hasOwn(v, j)) out[j] = v[j];
    }
    if (out) out[k] = c;
  }
  return out ?? v;
}

/** A character JSON.stringify escapes: quote, backslash, control characters, surrogates (escaped when lone). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string's JSON text, as JSON.stringify writes it. Most strings of a decision (ids, paths,
 * addresses, times) need no escape: for them a test and two concatenations, no call into the runtime.
 */
export function stringText(v: string): string {
  return v.length <= 256 && !ESCAPED.test(v) ? '"' + v + '"' : JSON.stringify(v);
}

/** JSON text of a value, with OPA's conventions. `indent` as in JSON.stringify. */
export function toJSONText(v: Value, indent?: number): string {
  const parts: string[] = [];
  write(v, parts, indent ? ' '.repeat(indent) : '', '');
  return parts.join('');
}

function write(v: Value, out: string[], ind: string, cur: string): void {
  // undefined is no Rego value, but JS callers hand over objects with optional fields left
  // undefined: written as JSON.stringify does (a null in an array; the key left out below)
  if (v === null || v === undefined) {
    out.push('null');
    return;
  }
  switch (typeof v) {
    case 'string':
      out.push(JSON.stringify(v));
      return;
    case 'number':
      out.push(numberText(v));
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
  }
  if (v instanceof BigNum) {
    out.push(v.text);
    return;
  }
  let items: Value[] | undefined;
  let entries: [string, Value][] | undefined;
  if (Array.isArray(v)) items = v;
  else if (v instanceof RSet) items = v.values();
  else if (v instanceof RObject) entries = v.entries().map(([k, x]) => [typeof k === 'string' ? k : toJSONText(k), x]);
  else {
    entries = [];
    for (const k of sortedKeys(v as PlainObject)) if ((v as PlainObject)[k] !== undefined) entries.push([k, (v as PlainObject)[k]!]);
  }
  const next = cur + ind;
  const nl = ind ? '\n' : '';
  if (items) {
    if (items.length === 0) return void out.push('[]');
    out.push('[');
    items.forEach((x, i) => {
      if (i) out.push(',');
      out.push(nl + next);
      write(x, out, ind, next);
    });
    out.push(nl + cur + ']');
    return;
  }
  if (entries!.length === 0) return void out.push('{}');
  out.push('{');
  entries!.forEach(([k, x], i) => {
    if (i) out.push(',');
    out.push(nl + next + JSON.stringify(k) + (ind ? ': ' : ':'));
    write(x, out, ind, next);
  });
  out.push(nl + cur + '}');
}

/** Whether a value is already plain JSON (no sets, no BigNum, no non-string keys). */
export function isJSON(v: Value): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (Array.isArray(v)) return v.every(isJSON);
  if (!isPlainObject(v)) return false;
  for (const k in v) if (Object.hasOwn(v, k) && !isJSON(v[k]!)) return false;
  return true;
}

/** Plain JSON with every object's keys in sorted order, as Go marshals maps. */
export function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, sortKeysDeep(o[k])]));
  }
  return v;
}
