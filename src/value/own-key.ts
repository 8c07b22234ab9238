// Reading an own property of a plain object without Object.hasOwn. V8 does not inline
// Object.hasOwn (nor hasOwnProperty.call) outside for-in loops: measured on JSON.parse
// objects, a two-key path read took ~3x as long with it as with plain property loads. A
// property load is an own-property test when the object's prototype is exactly
// Object.prototype and Object.prototype has no such property (so nothing is inherited).
// `x.__proto__` reads the prototype as fast as a property (Object.getPrototypeOf is a
// call V8 does not inline here); an object with an own "__proto__" key (JSON.parse makes
// one) answers that key's value instead, which is never Object.prototype, so it takes the
// general path, as do objects without a prototype (one whose prototype has none reads the
// same, and only Object.getPrototypeOf tells them apart). Under `node --disable-proto` the
// accessor is gone (or throws) and the general path is always taken.

import type { PlainObject, Value } from './types.js';

const OP = Object.prototype as unknown as Record<string, unknown>;

/** Whether `x.__proto__` reads the prototype in this process. */
export const PROTO_READS: boolean = (() => {
  try {
    return ({} as { __proto__?: unknown }).__proto__ === OP;
  } catch {
    return false;
  }
})();

/** Result of ownKey when it cannot tell (not a plain object): the caller decides. */
export const UNKNOWN: unique symbol = Symbol('not a plain object');

/**
 * o[key] when o is a plain object (prototype exactly Object.prototype) and key is its own
 * property; undefined when it is a plain object without that own property; UNKNOWN when o
 * is anything else (or the fast reading is unavailable).
 */
export function ownKey(o: object, key: string): Value | undefined | typeof UNKNOWN {
  if (!PROTO_READS) return UNKNOWN;
  if ((o as { __proto__?: unknown }).__proto__ !== OP) return UNKNOWN;
  const y = (o as PlainObject)[key];
  // found, and no Object.prototype property of that name it could have come from
  if (y === undefined || OP[key] === undefined) return y;
  return Object.hasOwn(o, key) ? y : undefined;
}
