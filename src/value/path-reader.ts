// A reader for one fixed path of string keys (`input.resource.tenant`, `grant.action`),
// generated as its own function so that each ref site gets its own inline caches.
// Through the shared `lookup`, every property read in a policy meets every object shape
// the policy touches (megamorphic, ~10-30 ns a read); a site of its own usually sees one
// or two shapes and reads a plain object in a few ns. Semantics are lookup's exactly:
// own properties of plain objects only, anything else through `lookup` itself.

import { lookup } from './collections.js';
import { PROTO_READS } from './own-key.js';
import type { Value } from './types.js';

export type PathReader = (v: Value | undefined) => Value | undefined;

const cache = new Map<string, PathReader>();
const MAX_READERS = 20_000;

/**
 * A function reading keys[0], keys[1], ... from a value (undefined when one is missing).
 * `head` names what the path is read from (`input`, a variable's name): readers are shared
 * by sites with the same head and path, which usually see the same shapes, so a policy
 * compiles one function per distinct ref text, not per occurrence.
 */
export function pathReader(head: string, keys: readonly string[]): PathReader {
  const id = JSON.stringify([head, ...keys]);
  let r = cache.get(id);
  if (r === undefined) {
    // a process that loads policy after policy stops generating at some point
    r = keys.length === 0 || keys.includes('__proto__') || cache.size >= MAX_READERS ? (v) => readSlowly(v, keys) : generate(keys);
    cache.set(id, r);
  }
  return r;
}

function readSlowly(v: Value | undefined, keys: readonly string[]): Value | undefined {
  for (let i = 0; i < keys.length && v !== undefined; i++) v = lookup(v, keys[i]!);
  return v;
}

function generate(keys: readonly string[]): PathReader {
  // JSON.stringify of a string is a valid JS string literal, so no key can inject code.
  let body = 'let x = v, y;\n';
  for (const key of keys) {
    const k = JSON.stringify(key);
    // a plain object read with a property load (see own-key.ts); OP[k] stays checked at
    // run time, so a property added to Object.prototype later is still not read
    const plain = PROTO_READS && !(key in Object.prototype) ? `if (x.__proto__ === OP) { y = x[${k}]; if (y === undefined || (OP[${k}] !== undefined && !hasOwn(x, ${k}))) return undefined; x = y; }\nelse ` : '';
    body +=
      `if (x === null || typeof x !== 'object') return undefined;\n` +
      plain +
      `if (x.constructor === Object) { if (!hasOwn(x, ${k})) return undefined; x = x[${k}]; }\n` +
      `else { x = lookup(x, ${k}); if (x === undefined) return undefined; }\n`;
  }
  body += 'return x;';
  const make = new Function('lookup', 'hasOwn', 'OP', `return function readPath(v) {\n${body}\n}`) as (l: typeof lookup, h: typeof Object.hasOwn, op: object) => PathReader;
  return make(lookup, Object.hasOwn, Object.prototype);
}
