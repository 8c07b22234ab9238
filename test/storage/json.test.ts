import { describe, expect, it } from 'vitest';
import { parseJSON, JSONParseError } from '../../src/storage/index.js';
import { BigNum, toJSONText } from '../../src/value/index.js';

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
