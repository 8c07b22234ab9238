import { describe, expect, it } from 'vitest';
import { lookup } from '../../src/value/collections.js';
import {
  BigNum,
  RObject,
  RSet,
  compare,
  equal,
  hashValue,
  makeNumber,
  makeObject,
  parseNumber,
  toJSONText,
  toRegoString,
  typeName,
  type Value,
} from '../../src/value/index.js';

describe('numbers', () => {
  it('keeps doubles where they are exact', () => {
    expect(parseNumber('1')).toBe(1);
    expect(parseNumber('0.1')).toBe(0.1);
    expect(parseNumber('1.0')).toBe(1);
    expect(parseNumber('-0')).toBe(0);
    expect(parseNumber('1e3')).toBe(1000);
    expect(parseNumber('1.5e300')).toBe(1.5e300);
  });
  it('switches to exact decimals where a double would lose digits', () => {
    const big = parseNumber('12345678901234567890');
    expect(big).toBeInstanceOf(BigNum);
    expect(toJSONText(big!)).toBe('12345678901234567890');
    const huge = parseNumber('1e400');
    expect(huge).toBeInstanceOf(BigNum);
    expect(toJSONText(huge!)).toBe('1e400');
    expect(parseNumber('0.1234567890123456789')).toBeInstanceOf(BigNum);
    // Underflow must not turn a non-zero number into zero.
    const tiny = parseNumber('1e-400');
    expect(tiny).toBeInstanceOf(BigNum);
    expect(compare(tiny!, 0)).toBe(1);
  });
  it('compares across representations exactly', () => {
    expect(compare(parseNumber('12345678901234567890')!, 12345678901234567000)).toBe(1);
    expect(compare(parseNumber('1e400')!, Number.MAX_VALUE)).toBe(1);
    expect(compare(parseNumber('-1e400')!, -Number.MAX_VALUE)).toBe(-1);
    expect(compare(1, 1.0)).toBe(0);
    expect(equal(parseNumber('100000000000000000000000')!, parseNumber('1e23')!)).toBe(true);
  });
  it('orders by the nearest doubles when they differ, exactly when they tie', () => {
    const above = parseNumber('9007199254740993')!; // 2^53 + 1: its nearest double is 2^53
    expect(above).toBeInstanceOf(BigNum);
    expect(compare(above, 9007199254740992)).toBe(1);
    expect(compare(9007199254740992, above)).toBe(-1);
    expect(compare(above, 9007199254740994)).toBe(-1);
    expect(compare(parseNumber('1e400')!, parseNumber('2e400')!)).toBe(-1);
    expect(compare(parseNumber('12345678901234567891')!, parseNumber('12345678901234567890')!)).toBe(1);
    expect(compare(1.5, parseNumber('1e400')!)).toBe(-1);
  });
  it('makes integers doubles only when the double prints the same digits', () => {
    expect(makeNumber(4102444800000000000n, 0)).toBe(4102444800000000000);
    expect(makeNumber(-42n, 0)).toBe(-42);
    expect(makeNumber(0n, 0)).toBe(0);
    // 2^60 is a double, but it prints as 1152921504606847000
    expect(makeNumber(2n ** 60n, 0)).toBeInstanceOf(BigNum);
    expect(toJSONText(makeNumber(2n ** 60n, 0))).toBe('1152921504606846976');
    expect(makeNumber(10n ** 22n, 0)).toBe(1e22); // printed 1e+22: the decimal path decides
    expect(makeNumber(15n, -1)).toBe(1.5);
  });
  it('prints integers with every digit', () => {
    expect(toJSONText(1e21)).toBe('1e+21');
    expect(toJSONText(parseNumber('123456789012345678901234567890')!)).toBe('123456789012345678901234567890');
    expect(toJSONText(0.000001)).toBe('0.000001');
  });
  it('rejects text that is not a number', () => {
    expect(parseNumber('1.')).toBeUndefined();
    expect(parseNumber('abc')).toBeUndefined();
    expect(parseNumber('')).toBeUndefined();
  });
});

describe('total order', () => {
  it('orders types as OPA does', () => {
    const ordered: Value[] = [null, false, true, -1, 0, 2.5, '', 'a', 'b', [], [1], {}, { a: 1 }, RSet.of(), RSet.of(1)];
    for (let i = 0; i < ordered.length; i++)
      for (let j = 0; j < ordered.length; j++)
        expect(Math.sign(compare(ordered[i]!, ordered[j]!)), `${i} vs ${j}`).toBe(Math.sign(i - j));
  });
  it('compares arrays element-wise then by length', () => {
    expect(compare([1, 2], [1, 3])).toBe(-1);
    expect(compare([1, 2], [1])).toBe(1);
    expect(compare([2], [1, 5])).toBe(1);
  });
  it('compares objects key by key, then value, then size', () => {
    expect(compare({ a: 1 }, { b: 0 })).toBe(-1);
    expect(compare({ a: 2 }, { a: 1, b: 1 })).toBe(1);
    expect(compare({ a: 1 }, { a: 1, b: 1 })).toBe(-1);
  });
  it('orders strings by UTF-8 bytes like Go', () => {
    // U+FF5E (3 UTF-8 bytes, starts 0xEF) sorts before U+1F600 (4 bytes, starts 0xF0),
    // though its UTF-16 code unit is larger than the surrogate.
    expect(compare('\uff5e', '\u{1f600}')).toBe(-1);
    expect(compare('a', 'ab')).toBe(-1);
  });
});

describe('equality and hashing', () => {
  const pairs: [Value, Value][] = [
    [RSet.of(1, 2, 3), RSet.of(3, 2, 1)],
    [{ a: [1, { b: RSet.of('x') }] }, { a: [1, { b: RSet.of('x') }] }],
    [JSON.parse('{"b":{"c":[1,2]},"a":null}'), { a: null, b: { c: [1, 2] } }],
    [makeObject([[1, 'one'], ['two', 2]]), makeObject([['two', 2], [1, 'one']])],
    [RSet.of([1, 2], { k: 'v' }), RSet.of({ k: 'v' }, [1, 2])],
  ];
  it('equal values hash equally regardless of construction order', () => {
    for (const [a, b] of pairs) {
      expect(equal(a, b)).toBe(true);
      expect(hashValue(a)).toBe(hashValue(b));
      expect(compare(a, b)).toBe(0);
    }
  });
  it('distinguishes values of different types', () => {
    expect(equal(1, '1')).toBe(false);
    expect(equal([], {})).toBe(false);
    expect(equal(RSet.of(), [])).toBe(false);
    expect(equal({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(equal({ a: 1, b: 2 }, { a: 1 })).toBe(false);
  });
  it('sets deduplicate structurally', () => {
    const s = RSet.of([1], [1], { a: 1 }, { a: 1 }, 1, 1);
    expect(s.size).toBe(3);
    expect(s.has([1])).toBe(true);
    expect(s.has({ a: 1 })).toBe(true);
    expect(s.has({ a: 2 })).toBe(false);
  });
  it('sets built unchecked drop repeats before anything but unordered() sees them', () => {
    const mk = () => {
      const s = new RSet();
      for (const v of [{ a: 1 }, 'x', { a: 1 }, 'x', [1], { a: 2 }]) s.addUnchecked(v);
      return s;
    };
    expect(mk().unordered().length).toBe(6);
    expect(mk().size).toBe(4);
    expect(mk().has({ a: 1 })).toBe(true);
    expect(mk().values()).toEqual(['x', [1], { a: 1 }, { a: 2 }]);
    expect(hashValue(mk())).toBe(hashValue(RSet.of('x', [1], { a: 2 }, { a: 1 })));
    expect(equal(mk(), RSet.of('x', [1], { a: 2 }, { a: 1 }))).toBe(true);
    const s = mk();
    expect(s.add({ a: 2 })).toBe(false);
    expect(s.unordered()).toEqual([{ a: 1 }, 'x', [1], { a: 2 }]);
    const live = mk();
    const walking = live.unordered();
    expect(live.has('x')).toBe(true); // settles
    expect(walking.length).toBe(6); // the array a running loop holds is left as it was
    const many = new RSet();
    for (let i = 0; i < 10000; i++) many.addUnchecked({ k: i % 3 });
    expect(many.unordered().length).toBeLessThan(4100);
    expect(many.size).toBe(3);
  });
  it('objects with non-string keys look up by value', () => {
    const o = makeObject([[[1, 2], 'pair'], [1, 'one']]);
    expect(o).toBeInstanceOf(RObject);
    expect((o as RObject).get([1, 2])).toBe('pair');
    expect((o as RObject).get('1')).toBeUndefined();
  });
  it('treats __proto__ as an ordinary key', () => {
    const o = makeObject([['__proto__', 1]]);
    expect(Object.keys(o)).toEqual(['__proto__']);
    expect(equal(o, JSON.parse('{"__proto__":1}'))).toBe(true);
    expect(lookup(o, '__proto__')).toBe(1);
    expect(lookup(o, 'toString')).toBeUndefined();
  });
  it('looks up own keys only, whatever the prototype or a "constructor" key', () => {
    const made = makeObject([['a', 1], ['constructor', 2]]);
    const parsed = JSON.parse('{"a":1,"constructor":2}');
    const bare = Object.assign(Object.create(null), { a: 1 });
    for (const o of [made, parsed]) {
      expect(lookup(o, 'a')).toBe(1);
      expect(lookup(o, 'constructor')).toBe(2);
      expect(lookup(o, 'hasOwnProperty')).toBeUndefined();
    }
    expect(lookup(bare, 'a')).toBe(1);
    expect(lookup({ a: 1 }, 'constructor')).toBeUndefined();
    expect(lookup(RSet.of('a'), 'a')).toBe('a');
    expect(lookup(['x'], 'length')).toBeUndefined();
  });
});

describe('serialisation', () => {
  it('writes sets as sorted arrays and keeps big numbers exact', () => {
    const v: Value = { b: RSet.of(3, 1, 2), a: [parseNumber('12345678901234567890')!] };
    expect(toJSONText(v)).toBe('{"a":[12345678901234567890],"b":[1,2,3]}');
  });
  it('prints Rego syntax', () => {
    expect(toRegoString(RSet.of())).toBe('set()');
    expect(toRegoString(RSet.of('b', 'a'))).toBe('{"a", "b"}');
    expect(toRegoString({ x: [1, null, true] })).toBe('{"x": [1, null, true]}');
    expect(toRegoString(makeObject([[1, 2]]))).toBe('{1: 2}');
    expect(typeName(RSet.of())).toBe('set');
  });
});

describe('cached facts about plain values', () => {
  it('are not reused across evaluations when a caller mutates an object', async () => {
    const { nextValueEpoch } = await import('../../src/value/index.js');
    const o: Record<string, Value> = { b: 1, a: 2 };
    nextValueEpoch();
    expect(toJSONText(o)).toBe('{"a":2,"b":1}');
    const h1 = hashValue(o);
    o.c = 3; // mutated between two evaluations
    nextValueEpoch();
    expect(toJSONText(o)).toBe('{"a":2,"b":1,"c":3}');
    expect(hashValue(o)).not.toBe(h1);
    expect(equal(o, { a: 2, b: 1, c: 3 })).toBe(true);
    expect(hashValue(o)).toBe(hashValue({ c: 3, a: 2, b: 1 }));
  });
});
