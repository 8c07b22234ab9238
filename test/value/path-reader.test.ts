import { describe, expect, it } from 'vitest';
import { pathReader } from '../../src/value/path-reader.js';
import { lookup } from '../../src/value/collections.js';
import { parseJSON, RSet, RObject, type Value } from '../../src/value/index.js';

// The reader must answer exactly what a chain of `lookup` calls answers.
function chain(v: Value | undefined, keys: string[]): Value | undefined {
  for (const k of keys) if (v !== undefined) v = lookup(v, k);
  return v;
}

const docs: (Value | undefined)[] = [
  undefined,
  null,
  1,
  'str',
  [1, 2],
  parseJSON('{"a": {"b": {"c": 1}}, "toString": 2, "__proto__": {"x": 3}, "constructor": {"y": 4}}'),
  parseJSON('{"a": [ {"b": 1} ], "valueOf": null, "k\\"e\'y${x}\\\\": "odd"}'),
  { a: { b: false } } as Value,
  Object.assign(Object.create(null) as Record<string, Value>, { a: { b: 'from null proto' } }) as Value,
  RSet.of('a'),
  (() => {
    const o = new RObject();
    o.set(1, 'one');
    o.set('a', { b: 'robject' });
    return o;
  })(),
];

const paths = [['a'], ['a', 'b'], ['a', 'b', 'c'], ['toString'], ['hasOwnProperty'], ['constructor'], ['constructor', 'y'], ['__proto__'], ['__proto__', 'x'], ['valueOf'], ['k"e\'y${x}\\'], ['0'], ['length']];

describe('pathReader', () => {
  it('reads what a chain of lookups reads, for every head and path', () => {
    for (const d of docs)
      for (const p of paths) {
        const got = pathReader('input', p)(d);
        expect(got, `${JSON.stringify(p)} of doc ${docs.indexOf(d)}`).toBe(chain(d, p));
      }
  });

  it('never reads inherited members of plain objects', () => {
    expect(pathReader('x', ['toString'])({} as Value)).toBeUndefined();
    expect(pathReader('x', ['__proto__'])({} as Value)).toBeUndefined();
    expect(pathReader('x', ['a'])(Object.create({ a: 1 }) as Value)).toBeUndefined();
  });

  it('takes keys as data, never as code', () => {
    const key = "'); throw new Error('injected'); ('";
    expect(pathReader('input', [key])({ [key]: 7 } as Value)).toBe(7);
    expect(pathReader('input', ['"+process.exit(1)+"'])({} as Value)).toBeUndefined();
  });
});
