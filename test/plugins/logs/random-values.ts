// Random Rego values for the decision-log tests: every kind a decision can carry (sets, big
// numbers, non-string keys, keys that sort differently by UTF-8 bytes than by UTF-16 units),
// and plain JSON values as clients send them.

import { BigNum, RSet, makeObject, newPlainObject, type Value } from '../../../src/value/index.js';

const STRINGS = ['', 'a', 'Zed', 'b"q', 'back\\slash', 'tab\there', 'nl\n', '\u0001ctl', 'é', '日本', '😀', 'lone \ud800 hi', '\udc00', '</script>', 'a'.repeat(300), 'x"'.repeat(200)];
const NUMBERS = [0, -0, 1, -17, 3.5, 1e21, 1e-7, 2 ** 53, 123456789.125];

export const pickOf = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

export function randomValue(r: () => number, depth: number): Value {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const k = r();
  if (depth <= 0 || k < 0.35) {
    const t = Math.floor(r() * 5);
    return t === 0 ? null : t === 1 ? r() < 0.5 : t === 2 ? pick(NUMBERS) : pick(STRINGS);
  }
  if (k < 0.55) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth - 1));
  if (k < 0.6) return RSet.of(pick(STRINGS), pick(NUMBERS), [pick(STRINGS)]);
  if (k < 0.62) return new BigNum(12345678901234567890n, 0);
  if (k < 0.64) return makeObject([[1, pick(STRINGS)], ['k', pick(NUMBERS)]]);
  // Objects with keys in random order, some of which sort differently by UTF-8 bytes than by UTF-16 units.
  const o = r() < 0.5 ? newPlainObject() : ({} as Record<string, Value>);
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) o[pick(['id', 'user', 'a', 'B', '_x', 'ｚ', '😀k', 'q"k', 'tags', 'z9', pick(STRINGS)])] = randomValue(r, depth - 1);
  return o as Value;
}

/** A JSON value as a client sends it (no sets, big numbers or non-string keys), keys in random order. */
export function plainValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth <= 0 || k < 0.35) {
    const t = Math.floor(r() * 4);
    return t === 0 ? null : t === 1 ? r() < 0.5 : t === 2 ? pickOf(r, NUMBERS) : pickOf(r, STRINGS);
  }
  if (k < 0.55) return Array.from({ length: Math.floor(r() * 4) }, () => plainValue(r, depth - 1));
  const o: Record<string, unknown> = {};
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) o[pickOf(r, ['id', 'user', 'a', 'B', '_x', 'ｚ', '😀k', 'q"k', 'tags', 'z9'])] = plainValue(r, depth - 1);
  return o;
}
