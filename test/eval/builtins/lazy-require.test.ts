// A library that a few built-ins load on first call (src/eval/builtins/lazy-require.ts): when
// it cannot be loaded the query ends with an internal error; the `*.is_valid` built-ins built
// on it must not read that as "the text is invalid" (a false that `not` turns into true).
import { describe, expect, it } from 'vitest';
import { lazyRequire } from '../../../src/eval/builtins/lazy-require.js';
import { isValid } from '../../../src/eval/builtins/is-valid.js';
import { RegoEvalError } from '../../../src/eval/errors.js';
import type { BuiltinContext } from '../../../src/eval/builtins/registry.js';

const missing = (name: string): never => {
  throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
};

describe('lazyRequire', () => {
  it('loads once and returns the same module', () => {
    let loads = 0;
    const lib = lazyRequire<{ n: number }>('x', () => ({ n: ++loads }));
    expect(lib()).toBe(lib());
    expect(loads).toBe(1);
  });

  it('a library that cannot be loaded is an internal error naming it', () => {
    const lib = lazyRequire('graphql', missing);
    expect(() => lib()).toThrow(RegoEvalError);
    try {
      lib();
    } catch (e) {
      expect((e as RegoEvalError).code).toBe('eval_internal_error');
      expect((e as RegoEvalError).message).toContain("the graphql library could not be loaded: Cannot find module 'graphql'");
    }
  });

  it('is_valid over a library that cannot be loaded raises instead of answering false', () => {
    const lib = lazyRequire<{ parse(s: string): unknown }>('graphql', missing);
    const fn = isValid((text) => lib().parse(text));
    expect(() => fn(['{ name }'], {} as BuiltinContext)).toThrow(/could not be loaded/);
  });
});
