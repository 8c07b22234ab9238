// The compiled-pattern cache of glob.match and the regex built-ins: bounded, least recently
// used dropped first, a failed compilation remembered as the built-in's error.
import { describe, expect, it } from 'vitest';
import { BuiltinError } from '../../../src/eval/builtins/errors.js';
import { PatternCache } from '../../../src/eval/builtins/pattern-cache.js';

describe('PatternCache', () => {
  it('compiles once per key and drops the least recently used beyond its size', () => {
    const compiled: string[] = [];
    const cache = new PatternCache<{ key: string }>(2);
    const get = (k: string) => cache.get(k, () => (compiled.push(k), { key: k }));
    const a = get('a');
    get('b');
    expect(get('a')).toBe(a); // a hit, and now the most recently used
    get('c'); // drops b
    get('a');
    get('b');
    expect(compiled).toEqual(['a', 'b', 'c', 'b']);
  });

  it('remembers a pattern that does not compile and fails with its message each time', () => {
    let tries = 0;
    const cache = new PatternCache<RegExp>(10);
    const bad = () => cache.get('(', () => (tries++, new Error('missing closing )')));
    for (let i = 0; i < 2; i++) {
      expect(bad).toThrow(BuiltinError);
      expect(bad).toThrow('missing closing )');
    }
    expect(tries).toBe(1);
  });
});
