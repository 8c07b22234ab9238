// withBuiltinErrors: a parser's or library's own error becomes the built-in's error with
// its message (eval_builtin_error); any other error is not the built-in's and passes through.
import { describe, expect, it } from 'vitest';
import { BuiltinError, withBuiltinErrors } from '../../../src/eval/builtins/errors.js';

class ParseFailure extends Error {}

describe('withBuiltinErrors', () => {
  it('answers what f answers', () => {
    expect(withBuiltinErrors(ParseFailure, () => 7)).toBe(7);
  });
  it('turns errors of the given class into the built-in error with the same message', () => {
    let err: unknown;
    try {
      withBuiltinErrors(ParseFailure, () => {
        throw new ParseFailure('bad escape at 3');
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BuiltinError);
    expect(err).toMatchObject({ code: 'eval_builtin_error', message: 'bad escape at 3' });
  });
  it('lets other errors through unchanged', () => {
    const other = new TypeError('a bug');
    expect(() =>
      withBuiltinErrors(ParseFailure, () => {
        throw other;
      }),
    ).toThrow(other);
  });
});
