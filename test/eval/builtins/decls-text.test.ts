// Declarations and flags of the string-like built-ins must equal OPA's capabilities.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getBuiltin } from '../../../src/eval/builtins/index.js';

const caps = JSON.parse(readFileSync(new URL('../../../../shared/opa-capabilities-v1.20.2.json', import.meta.url), 'utf8')) as {
  builtins: { name: string; decl: unknown; infix?: string; relation?: boolean; nondeterministic?: boolean; deprecated?: boolean }[];
};

const MINE =
  /^(concat|contains|endswith|startswith|format_int|indexof|indexof_n|lower|upper|replace|split|sprintf|substring|trim|trim_left|trim_prefix|trim_right|trim_space|trim_suffix|strings\..*|internal\.template_string|regex\..*|re_match|glob\..*|base64\..*|base64url\..*|hex\..*|urlquery\..*|uri\..*|json\..*|yaml\..*)$/;

const mine = caps.builtins.filter((b) => MINE.test(b.name));

describe('declarations of string, regex, glob, encoding, json and yaml built-ins', () => {
  it('covers the expected number of built-ins', () => {
    expect(mine.length).toBeGreaterThanOrEqual(60);
  });
  for (const c of mine) {
    it(c.name, () => {
      const def = getBuiltin(c.name);
      expect(def, `${c.name} is not registered`).toBeDefined();
      expect(JSON.parse(JSON.stringify(def!.decl))).toEqual(c.decl);
      expect(def!.infix).toBe(c.infix);
      expect(!!def!.relation).toBe(!!c.relation);
      expect(!!def!.nondeterministic).toBe(!!c.nondeterministic);
      expect(!!def!.deprecated).toBe(!!c.deprecated);
    });
  }
});
