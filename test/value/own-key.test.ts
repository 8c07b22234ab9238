// Own-property reads without Object.hasOwn (src/value/own-key.ts) in the generated path
// readers: they must answer what Object.hasOwn (and lookup) answers, for
// every kind of object a caller can hand over, including prototypes that hold the key and
// a property added to Object.prototype after the reader was made.
import { afterEach, describe, expect, it } from 'vitest';
import { PROTO_READS } from '../../src/value/own-key.js';
import { lookup } from '../../src/value/collections.js';
import { pathReader } from '../../src/value/path-reader.js';
import type { Value } from '../../src/value/index.js';

/** The reference: an own property of a plain object, or nothing. */
function own(o: object, k: string): unknown {
  return Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined;
}

const KEYS = ['a', 'b', 'secret', 'toString', 'constructor', 'hasOwnProperty', '__proto__', 'valueOf', 'polluted', ''];

function objects(): [string, object][] {
  const nullProto = Object.assign(Object.create(null) as object, { a: 1, secret: 's' });
  return [
    ['JSON.parse', JSON.parse('{"a": 1, "b": {"c": 2}, "toString": 3, "": 4}') as object],
    ['JSON.parse with own __proto__ and constructor keys', JSON.parse('{"__proto__": {"secret": 1}, "constructor": 5, "a": 6}') as object],
    ['literal', { a: 1, b: undefined, valueOf: 7 }],
    ['prototype holding the key', Object.create({ secret: 'inherited', a: 'inherited' }) as object],
    ['own key over a prototype holding it', Object.assign(Object.create({ a: 'inherited' }) as object, { a: 'own' })],
    ['no prototype', nullProto],
    ['prototype without a prototype', Object.create(nullProto) as object],
    ['class instance', new (class Foo {
      a = 1;
    })()],
    ['array', [1, 2]],
  ];
}

describe('own-property reads', () => {
  afterEach(() => {
    delete (Object.prototype as Record<string, unknown>)['polluted'];
  });

  it('reads with property loads in this process', () => {
    expect(PROTO_READS).toBe(true);
  });

  it('lookup and path readers read own properties only, also after Object.prototype changes', () => {
    const readers = KEYS.map((k) => [k, pathReader('x', [k])] as const);
    for (const polluted of [false, true]) {
      if (polluted) (Object.prototype as Record<string, unknown>)['polluted'] = 'from Object.prototype';
      for (const [name, o] of objects()) {
        if (Array.isArray(o)) continue; // arrays: numeric keys only, tested with lookup
        for (const [k, read] of readers) {
          expect([name, k, polluted, lookup(o as Value, k)]).toEqual([name, k, polluted, own(o, k)]);
          expect([name, k, polluted, read(o as Value)]).toEqual([name, k, polluted, own(o, k)]);
        }
      }
    }
  });

  it('reads nested plain objects through a path', () => {
    const doc = JSON.parse('{"a": {"b": {"toString": 1, "c": 2}}}') as Value;
    expect(pathReader('x', ['a', 'b', 'c'])(doc)).toBe(2);
    expect(pathReader('x', ['a', 'b', 'toString'])(doc)).toBe(1);
    expect(pathReader('x', ['a', 'toString'])(doc)).toBeUndefined();
    expect(pathReader('x', ['a', 'b', 'c', 'd'])(doc)).toBeUndefined();
  });
});
