// Property tests: whatever the input, the parser returns a Module or throws
// RegoParseError (never anything else), and each parse finishes quickly.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseModule, parseQuery, RegoParseError } from '../../src/lang/index.js';
import { loadCases } from '../conformance/cases.js';
import { hasOpaConformance } from '../opa-conformance.js';

// CPU time, generous enough for a loaded CI machine (under stress-ng the wall clock of one
// parse passed 1.7 s); a catastrophic (exponential) parse blows far past it.
const MAX_MS = 1000;

/** CPU time of this process in ms: a bound on it is not broken by other processes taking the cores. */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function check(text: string, regoVersion: 'v0' | 'v1', budgetMs = MAX_MS): void {
  const t0 = cpuMs();
  for (const f of [() => parseModule(text, { filename: 'f.rego', regoVersion }), () => parseQuery(text, { regoVersion })]) {
    try {
      f();
    } catch (e) {
      if (!(e instanceof RegoParseError)) throw new Error(`non-RegoParseError for ${JSON.stringify(text)}: ${String(e)}`);
      for (const d of e.errors) {
        expect(d.code).toBe('rego_parse_error');
        expect(typeof d.message).toBe('string');
      }
    }
  }
  const ms = cpuMs() - t0;
  if (ms > budgetMs) throw new Error(`parse took ${ms.toFixed(0)} ms for ${JSON.stringify(text.slice(0, 200))}`);
}

// Real Rego to mutate: the modules of OPA's conformance cases, when they are on this machine.
const withCorpus = hasOpaConformance('mutating the modules of OPA\'s conformance cases');
const corpus = [...new Set(loadCases().flatMap((c) => c.modules))];

/** Insert, delete or swap characters of real Rego text. */
const mutated = fc
  .tuple(
    fc.integer({ min: 0, max: Math.max(0, corpus.length - 1) }),
    fc.array(
      fc.tuple(fc.constantFrom('ins', 'del', 'swap', 'dup'), fc.nat(), fc.constantFrom(...'{}[]()|&:=;,."`#\n _x0-+\\$@!<>'.split(''))),
      { minLength: 1, maxLength: 8 },
    ),
  )
  .map(([i, edits]) => {
    let s = corpus[i]!;
    for (const [op, at, ch] of edits) {
      const p = s.length ? at % s.length : 0;
      if (op === 'ins') s = s.slice(0, p) + ch + s.slice(p);
      else if (op === 'del') s = s.slice(0, p) + s.slice(p + 1);
      else if (op === 'dup') s = s.slice(0, p) + s.slice(p, p + 20) + s.slice(p);
      else if (p + 1 < s.length) s = s.slice(0, p) + s[p + 1] + s[p] + s.slice(p + 2);
    }
    return s;
  });

const regoish = fc
  .array(
    fc.constantFrom(
      'package p\n', 'p', ' ', '\n', 'if', 'contains', 'else', 'default', 'not', 'some', 'every', 'in', 'with', 'as', ':=', '=', '==',
      '{', '}', '[', ']', '(', ')', '|', '&', ',', ';', ':', '.', '_', 'x', '1', '-', '"s"', '`r`', '# c\n', 'import future.keywords\n', 'set()',
    ),
    { maxLength: 60 },
  )
  .map((xs) => xs.join(''));

describe('parser robustness', () => {
  it('random strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), fc.constantFrom('v0', 'v1'), (s, v) => check(s, v as 'v0' | 'v1')), { numRuns: 500 });
  });
  it('random unicode', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (s) => check(s, 'v1')), { numRuns: 100 });
  });
  it('Rego-like token soup', () => {
    fc.assert(fc.property(regoish, fc.constantFrom('v0', 'v1'), (s, v) => check(s, v as 'v0' | 'v1')), { numRuns: 1000 });
  });
  it.runIf(withCorpus)('mutated conformance modules', () => {
    expect(corpus.length).toBeGreaterThan(100);
    fc.assert(fc.property(mutated, fc.constantFrom('v0', 'v1'), (s, v) => check(s, v as 'v0' | 'v1')), { numRuns: 1500 });
  });
  it('pathological nesting and repetition stay bounded', () => {
    for (const s of ['['.repeat(20000), '{'.repeat(20000), '[x | '.repeat(3000), 'f('.repeat(5000), '{"a": '.repeat(5000), 'a['.repeat(5000), '(1 + '.repeat(5000)]) {
      // Inputs of 15-100 KB: linear work, well under a second.
      check(s, 'v1', 1500);
    }
    // Nested composites followed by operators force OPA-style retries; the term memo keeps them linear.
    check('package p\np := ' + '[[[[[[[[[[1]]]]]]]]]]+'.repeat(2000) + '1', 'v1', 1500);
    check('package p\np := ' + '['.repeat(900) + '1' + ']+1'.repeat(900), 'v1', 1500);
  });
});
