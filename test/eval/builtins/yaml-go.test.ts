// yaml.unmarshal reads integers as go-yaml v2 does under OPA (Go's base-0 integer parse).
import { describe, expect, it } from 'vitest';
import { text } from './builtin-calls.js';
import { goYAMLInt } from '../../../src/eval/builtins/yaml/int.js';

describe('yaml.unmarshal integers (go-yaml v2)', () => {
  it('reads octal, binary, hex and underscores like Go', () => {
    expect(text('yaml.unmarshal', '[017, 0o17, 0b101, -0x10, 1_000, +12, 09, "017"]')).toBe('[15,15,5,-16,1000,12,9,"017"]');
  });
  it('keeps uint64 values exact and turns larger ones into floats', () => {
    expect(text('yaml.unmarshal', 'a: 12345678901234567890')).toBe('{"a":12345678901234567890}');
    expect(text('yaml.unmarshal', 'a: 123456789012345678901234567890')).toBe('{"a":1.2345678901234568e+29}');
  });
  it('leaves non-numbers as strings', () => {
    expect(text('yaml.unmarshal', '[0x, 0x1G, +inf, 2001-12-14]')).toBe('["0x","0x1G","+inf","2001-12-14"]');
    expect(goYAMLInt('1.5')).toBeUndefined();
  });
  it('turns integer map keys into their decimal text', () => {
    expect(text('yaml.unmarshal', '017: x')).toBe('{"15":"x"}');
  });
  it('yaml.marshal quotes strings go-yaml v2 would read back as numbers or timestamps', () => {
    const out = JSON.parse(text('yaml.marshal', ['2001-12-14', '1_000', '1.5_0', '0o17', '2001-12-14T01:02:03Z', 'abc', '2001-12-14x'])) as string;
    expect(out).toBe('- "2001-12-14"\n- "1_000"\n- "1.5_0"\n- "0o17"\n- "2001-12-14T01:02:03Z"\n- abc\n- 2001-12-14x\n');
  });
});
