// Reading an own property of a plain object without Object.hasOwn, for the generated path
// readers (path-reader.ts), whose keys are constants. V8 does not inline Object.hasOwn (nor
// hasOwnProperty.call) outside for-in loops: measured on JSON.parse objects, a two-key
// path read took ~3x as long with it as with plain property loads. (Not for `lookup`:
// with keys that vary, the two keyed loads this needs cost more than Object.hasOwn.) A
// property load is an own-property test when the object's prototype is exactly
// Object.prototype and Object.prototype has no such property (so nothing is inherited).
// `x.__proto__` reads the prototype as fast as a property (Object.getPrototypeOf is a
// call V8 does not inline here); an object with an own "__proto__" key (JSON.parse makes
// one) answers that key's value instead, which is never Object.prototype, so it takes the
// general path, as do objects without a prototype (one whose prototype has none reads the
// same, and only Object.getPrototypeOf tells them apart). Under `node --disable-proto` the
// accessor is gone (or throws) and the general path is always taken.

const OP = Object.prototype as unknown as Record<string, unknown>;

/** Whether `x.__proto__` reads the prototype in this process. */
export const PROTO_READS: boolean = (() => {
  try {
    return ({} as { __proto__?: unknown }).__proto__ === OP;
  } catch {
    return false;
  }
})();
