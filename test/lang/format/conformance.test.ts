// Property test over every module of OPA's conformance suite (v1 modules parsed as v1,
// v0-legacy modules as v0, and the v0 ones again converted to v1): formatting keeps
// the parsed tree and is stable. Prints the counts.

import { isDeepStrictEqual } from 'node:util';
import { expect, it } from 'vitest';
import { formatModule, parseModule, type Module } from '../../../src/lang/index.js';
import { loadCases } from '../../conformance/cases.js';
import { describeWithOpa } from '../../opa-conformance.js';
import { tree } from './tree.js';

interface Source {
  text: string;
  version: 'v0' | 'v1';
  where: string;
}

function modules(): Source[] {
  const seen = new Set<string>();
  const out: Source[] = [];
  for (const c of loadCases()) {
    for (const text of c.modules) {
      const key = c.regoVersion + '\0' + text;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ text, version: c.regoVersion, where: `${c.file} (${c.note})` });
    }
  }
  return out;
}

/** Why formatting `m` as `to` is wrong, or undefined when it is right. */
function problem(m: Module, to: 'v0' | 'v1'): string | undefined {
  const drop = m.regoVersion === 'v0' && to === 'v1';
  const out = formatModule(m, { regoVersion: to });
  let again: Module;
  try {
    again = parseModule(out, { regoVersion: to });
  } catch (e) {
    return `output does not parse: ${(e as Error).message}\n${out}`;
  }
  if (!isDeepStrictEqual(tree(again, { dropV0Imports: drop }), tree(m, { dropV0Imports: drop }))) return `tree changed:\n${out}`;
  const twice = formatModule(again, { regoVersion: to });
  if (twice !== out) return `not stable:\n${out}\n---\n${twice}`;
  return undefined;
}

describeWithOpa('formatting the modules of OPA\'s conformance cases', 'formatter over the conformance suite', () => {
  const all = modules();

  for (const [label, pick, to] of [
    ['v1 modules', 'v1', 'v1'],
    ['v0-legacy modules as v0', 'v0', 'v0'],
    ['v0-legacy modules converted to v1', 'v0', 'v1'],
  ] as const) {
    it(`keeps the tree and is stable: ${label}`, () => {
      let parsed = 0;
      const failures: string[] = [];
      for (const s of all.filter((x) => x.version === pick)) {
        let m: Module;
        try {
          m = parseModule(s.text, { regoVersion: s.version });
        } catch {
          continue; // modules written to fail parsing
        }
        parsed++;
        const p = problem(m, to);
        if (p) failures.push(`${s.where}: ${p}`);
      }
      console.log(`format ${label}: ${parsed - failures.length}/${parsed} pass`);
      expect(parsed).toBeGreaterThan(0);
      expect(failures).toEqual([]);
    });
  }
});
