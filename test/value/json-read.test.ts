import { describe, expect, it } from 'vitest';
import { BigNum, JSONParseError, parseJSON, parseJSONText, toJSONText } from '../../src/value/index.js';

describe('parseJSON', () => {
  it('parses ordinary JSON like JSON.parse', () => {
    expect(parseJSON('{"a":[1,2.5,"x",true,null]}')).toEqual({ a: [1, 2.5, 'x', true, null] });
  });
  it('keeps every digit of numbers a double cannot hold', () => {
    const v = parseJSON('{"big":12345678901234567890,"huge":1e400,"e":1e2,"s":"1e999"}') as Record<string, unknown>;
    expect(v['big']).toBeInstanceOf(BigNum);
    expect(toJSONText(v as never)).toBe('{"big":12345678901234567890,"e":100,"huge":1e400,"s":"1e999"}');
  });
  it('negative zero is zero', () => {
    expect(Object.is(parseJSON('-0'), 0)).toBe(true);
  });
  it('rejects malformed text', () => {
    for (const t of ['{', '{"a":}', '[1,]', 'nope', '', '{"a":1} x', '[12345678901234567890,]']) {
      expect(() => parseJSON(t), t).toThrow(JSONParseError);
    }
  });
  it('bounds nesting depth', () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    expect(() => parseJSON(deep, { maxDepth: 1000 })).toThrow(/nested deeper/);
    expect(parseJSON('[[[]]]', { maxDepth: 3 })).toEqual([[[]]]);
    const deepObj = '{"a":'.repeat(3000) + '1' + '}'.repeat(3000);
    expect(() => parseJSON(deepObj)).toThrow(/nested deeper/);
  });
  it('strings with brackets do not count as nesting', () => {
    const s = JSON.stringify({ s: '['.repeat(5000) });
    expect(parseJSON(s, { maxDepth: 2 })).toEqual({ s: '['.repeat(5000) });
  });
});

describe('parseJSONText', () => {
  it('builds numbers from their literal text, tolerates a byte order mark, keeps __proto__ as a key', () => {
    const t = parseJSONText('\ufeff{"n":[1.50,1e400],"__proto__":{"x":1},"s":"a\\u0041"}', (lit) => ({ lit })) as Record<string, unknown>;
    expect(t['n']).toEqual([{ lit: '1.50' }, { lit: '1e400' }]);
    expect(Object.getPrototypeOf(t)).toBe(Object.prototype);
    expect(Object.keys(t)).toEqual(['n', '__proto__', 's']);
    expect(t['s']).toBe('aA');
  });
  it('reports where it failed', () => {
    for (const [text, msg, offset] of [
      ['{"a" 1}', "expected ':' at offset 5 (found '1')", 5],
      ['[1,]', "invalid character at offset 3 (found ']')", 3],
      ['"a\u0001"', 'invalid control character in string at offset 2', 2],
      ['[1', "expected ',' or ']' at offset 2 (found end of input)", 2],
    ] as const) {
      try {
        parseJSONText(text, (l) => l);
        expect.unreachable(text);
      } catch (e) {
        expect(e).toBeInstanceOf(JSONParseError);
        expect((e as JSONParseError).message).toContain(msg);
        expect((e as JSONParseError).offset).toBe(offset);
      }
    }
  });
});
