// String built-ins return what OPA's Go implementation returns, with no "helpful"
// differences: no trimming, no context-sensitive case mappings, no answer where Go errors.
import { describe, expect, it } from 'vitest';
import { call, callError, obj } from './fake-context.js';

describe('string built-ins as Go computes them', () => {
  it('strings.render_template returns the output unchanged (no trimming)', () => {
    expect(call('strings.render_template', 'a\n', obj({}))).toBe('a\n');
    expect(call('strings.render_template', '  {{.x}} ', obj({ x: 1 }))).toBe('  1 ');
    expect(call('strings.render_template', '{{range .xs}}{{.}} {{end}}', obj({ xs: ['a', 'b'] }))).toBe('a b ');
    expect(call('strings.render_template', '\n\t', obj({}))).toBe('\n\t');
    // {{- -}} trims only what the template asks for
    expect(call('strings.render_template', ' [ {{- .x -}} ] ', obj({ x: 'y' }))).toBe(' [y] ');
  });

  it('indexof / indexof_n: an empty search string is an error, not 0', () => {
    for (const name of ['indexof', 'indexof_n']) {
      const e = callError(name, 'abc', '');
      expect(e.code).toBe('eval_builtin_error');
      expect(e.message).toContain('empty search character');
    }
  });

  it('lower maps capital sigma to σ everywhere (Go has no final-sigma rule)', () => {
    expect(call('lower', 'ΟΔΟΣ')).toBe('οδοσ');
    expect(call('lower', 'ὈΔΥΣΣΕΎΣ ΚΑΙ')).toBe('ὀδυσσεύσ και');
    expect(call('lower', 'Σ')).toBe('σ');
  });

  it('upper uses the simple mapping for Greek letters with ypogegrammeni', () => {
    expect(call('upper', 'ᾳ')).toBe('ᾼ');
    expect(call('upper', 'ᾀᾐᾠ')).toBe('ᾈᾘᾨ');
    expect(call('upper', 'ῃῳ')).toBe('ῌῼ');
    // titlecase forms and letters with no simple upper case stay as they are
    expect(call('upper', 'ᾈß')).toBe('ᾈß');
  });
});
