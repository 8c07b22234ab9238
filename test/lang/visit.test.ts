import { describe, expect, it } from 'vitest';
import { parseTerm, type Body, type Term } from '../../src/lang/index.js';
import { ARGS_ONLY, everyChildTerm, forEachChildTerm, isClosure, isCollectionTerm, mapChildTerms } from '../../src/lang/visit.js';
import { show } from './helpers.js';

/** A term as written (inside brackets, so that a call is a call term, not an expression). */
function parse(s: string): Term {
  return (parseTerm(`[${s}]`) as Term & { value: Term[] }).value[0]!;
}

/** The direct sub-terms forEachChildTerm reports, as text; bodies as `body(n)`. */
function children(s: string, o?: { skipCallOp?: boolean }, withBody = false): string[] {
  const out: string[] = [];
  forEachChildTerm(
    parse(s),
    (x) => void out.push(show(x)),
    o,
    withBody ? (b: Body) => void out.push(`body(${b.length})`) : undefined,
  );
  return out;
}

describe('forEachChildTerm', () => {
  it('visits the sub-terms of refs, arrays, sets, objects and calls in source order, keys before values', () => {
    expect(children('a.b[x]')).toEqual(['a', '"b"', 'x']);
    expect(children('[1, x, [y]]')).toEqual(['1', 'x', '[y]']);
    expect(children('{1, x}')).toEqual(['1', 'x']);
    expect(children('{"k": v, x: 2}')).toEqual(['"k"', 'v', 'x', '2']);
    expect(children('count(x)')).toEqual(['ref(count)', 'x']);
  });
  it('leaves out a call operator when asked', () => {
    expect(children('f(x, y)', ARGS_ONLY)).toEqual(['x', 'y']);
    expect(children('a[x]', ARGS_ONLY)).toEqual(['a', 'x']);
  });
  it('has no children for scalars and vars', () => {
    for (const s of ['null', 'true', '1', '"s"', 'x']) expect(children(s)).toEqual([]);
  });
  it('enters a closure only with a body callback: head terms first, then the body', () => {
    expect(children('[x | x := 1]')).toEqual([]);
    expect(children('[x | x := 1]', undefined, true)).toEqual(['x', 'body(1)']);
    expect(children('{x | x := 1; true}', undefined, true)).toEqual(['x', 'body(2)']);
    expect(children('{k: v | k := 1; v := 2}', undefined, true)).toEqual(['k', 'v', 'body(2)']);
  });
  it('stops at the first child for which the callback returns true, and says so', () => {
    const seen: string[] = [];
    const stopped = forEachChildTerm(parse('[1, x, 2]'), (c) => (seen.push(show(c)), c.type === 'var'));
    expect(stopped).toBe(true);
    expect(seen).toEqual(['1', 'x']);
    expect(forEachChildTerm(parse('[1, 2]'), () => false)).toBe(false);
    expect(everyChildTerm(parse('{"a": 1, "b": x}'), (c) => c.type !== 'var')).toBe(false);
    expect(everyChildTerm(parse('{"a": 1}'), (c) => c.type !== 'var')).toBe(true);
  });
});

describe('mapChildTerms', () => {
  const upper = (x: Term): Term => (x.type === 'var' ? { ...x, value: x.value.toUpperCase() } : x);
  it('rewrites each direct sub-term into a new term of the same kind', () => {
    const t = parse('[a, {b: c}, f(d)]');
    const out = mapChildTerms(t, upper);
    expect(show(out)).toBe('[A, {b: c}, call(ref(f), d)]');
    expect(out).not.toBe(t);
    expect(show(mapChildTerms(parse('{a: b}'), upper))).toBe('{A: B}');
    expect(show(mapChildTerms(parse('g(a)'), (x) => (x.type === 'ref' ? parse('h') : upper(x))))).toBe('call(h, A)');
    expect(show(mapChildTerms(parse('g(a)'), () => parse('z'), ARGS_ONLY))).toBe('call(ref(g), z)');
  });
  it('returns scalars and vars as they are, and closures unless a body mapper is given', () => {
    for (const s of ['null', '1', 'x']) {
      const t = parse(s);
      expect(mapChildTerms(t, upper)).toBe(t);
    }
    const c = parse('[x | x := 1]');
    expect(mapChildTerms(c, upper)).toBe(c);
    const mapped = mapChildTerms(c, upper, undefined, (b) => b.slice(0, 0));
    expect(show(mapped)).toBe('[X | ]');
  });
});

describe('kinds', () => {
  it('names closures and collections', () => {
    expect(['[x | true]', '{x | true}', '{k: v | true}'].map((s) => isClosure(parse(s)))).toEqual([true, true, true]);
    expect(['[1]', '{1}', '{"a": 1}', 'a.b', 'f(x)'].map((s) => isCollectionTerm(parse(s)))).toEqual([true, true, true, false, false]);
  });
});
