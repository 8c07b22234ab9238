import { describe, expect, test } from 'vitest';
import { RSet, toJSONText } from '../../../src/value/index.js';
import { call, expectError } from './builtin-calls.js';

describe('walk', () => {
  test('every [path, value] pair, root first', () => {
    expect(call('walk', 1)).toEqual([[[], 1]]);
    expect(call('walk', [1, 2])).toEqual([[[], [1, 2]], [[0], 1], [[1], 2]]);
    expect(call('walk', { v2: 'b', v1: 'a' })).toEqual([[[], { v1: 'a', v2: 'b' }], [['v1'], 'a'], [['v2'], 'b']]);
    const s = RSet.of(RSet.of(1, 2));
    expect(toJSONText(call('walk', s)!)).toBe('[[[],[[1,2]]],[[[1,2]],[1,2]],[[[1,2],1],1],[[[1,2],2],2]]');
  });
});

describe('graph.reachable', () => {
  const g = { a: ['b'], b: RSet.of('c'), c: ['a'], d: ['e'] };
  test('nodes reachable from the initial ones', () => {
    expect((call('graph.reachable', g, ['a']) as RSet).values()).toEqual(['a', 'b', 'c']);
    expect((call('graph.reachable', g, RSet.of('d')) as RSet).values()).toEqual(['d']);
    expect((call('graph.reachable', {}, RSet.of('a')) as RSet).size).toBe(0);
  });
  test('errors', () => {
    expectError(() => call('graph.reachable', [], ['a']), 'eval_type_error', 'operand 1 must be object but got array');
    expectError(() => call('graph.reachable', {}, 'a'), 'eval_type_error', 'operand 2 must be {array, set} but got string');
  });
});

describe('graph.reachable_paths', () => {
  test('paths to leaves, stopping at cycles', () => {
    const g = { a: ['b', 'c'], b: ['d'], c: [], d: ['a'], x: ['y'] };
    const paths = (call('graph.reachable_paths', g, ['a']) as RSet).values();
    expect(paths).toEqual([['a', 'b', 'd'], ['a', 'c']]);
    // y is not in the graph: the path ends before it.
    expect((call('graph.reachable_paths', g, ['x']) as RSet).values()).toEqual([['x']]);
    expect((call('graph.reachable_paths', g, ['c']) as RSet).values()).toEqual([['c']]);
  });
});
