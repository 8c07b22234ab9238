// json.unmarshal errors in Go's words, as OPA reports them (json.Decoder, then Token()).
import { describe, expect, it } from 'vitest';
import { callError } from './fake-context.js';
import { goJSONDecodeError } from '../../../src/eval/builtins/json/go-errors.js';

const msg = (s: string) => callError('json.unmarshal', s).message;

describe('json.unmarshal errors', () => {
  it('truncated or empty input', () => {
    expect(msg('')).toBe('EOF');
    expect(msg('[1, 2')).toBe('unexpected EOF');
    expect(msg('tru')).toBe('unexpected EOF');
    expect(msg('1.')).toBe('unexpected EOF');
  });
  it('syntax errors name the character and the place', () => {
    expect(msg('{x')).toBe("invalid character 'x' looking for beginning of object key string");
    expect(msg('{"a" 1}')).toBe("invalid character '1' after object key");
    expect(msg('{"a": 1 2}')).toBe("invalid character '2' after object key:value pair");
    expect(msg('[1 2]')).toBe("invalid character '2' after array element");
    expect(msg('[1,]')).toBe("invalid character ']' looking for beginning of value");
    expect(msg("'a'")).toBe("invalid character '\\'' looking for beginning of value");
    expect(msg('trux')).toBe("invalid character 'x' in literal true (expecting 'e')");
    expect(msg('1.x')).toBe("invalid character 'x' after decimal point in numeric literal");
    expect(msg('1ex')).toBe("invalid character 'x' in exponent of numeric literal");
    expect(msg('"a\nb"')).toBe("invalid character '\\n' in string literal");
    expect(msg('"\\q"')).toBe("invalid character 'q' in string escape code");
  });
  it('more than one value', () => {
    expect(msg('1 2')).toBe('error(s) occurred while decoding JSON: 2');
    expect(msg('01')).toBe('error(s) occurred while decoding JSON: 1');
    expect(msg('1 {')).toBe('error(s) occurred while decoding JSON: {');
    expect(msg('{} x')).toBe("invalid character 'x' looking for beginning of value");
  });
  it('accepts what Go accepts', () => {
    expect(goJSONDecodeError(' {"a": [1, -2.5e+3, "\\u00e9", true, null]} ')).toBeUndefined();
  });
});
