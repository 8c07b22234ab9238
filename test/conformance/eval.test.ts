// Evaluation runner for OPA's conformance cases (../shared/opa-conformance): compiles each
// case's modules, evaluates its query and compares the bindings or the error. Prints a
// table per directory. Only the language directories (and v0-legacy) fail the run;
// built-in directories owned by other work are reported in the table.

import { afterAll, describe, expect, it } from 'vitest';
import { loadCases, type ConformanceCase } from './cases.js';
import { runCase } from './run-case.js';

/** Directories that must pass in full (the language itself), plus the v0 legacy cases. */
const REQUIRED = new Set(
  [
    'aggregates', 'arithmetic', 'array', 'assignments', 'baseandvirtualdocs', 'casts', 'comparisonexpr', 'completedoc',
    'compositebasedereference', 'compositereferences', 'comprehensions', 'containskeyword', 'dataderef', 'defaultkeyword',
    'disjunction', 'elsekeyword', 'embeddedvirtualdoc', 'eqexpr', 'evaltermexpr', 'every', 'example', 'fix1863',
    'functionerrors', 'functions', 'helloworld', 'indexing', 'indirectreferences', 'inputvalues', 'negation',
    'nestedreferences', 'partialdocconstants', 'partialiter', 'partialobjectdoc', 'partialsetdoc', 'refheads', 'sets',
    'topdowndynamicdispatch', 'undos', 'varreferences', 'virtualdocs', 'withkeyword',
  ].map((d) => 'v1/' + d),
);
const isRequired = (dir: string) => REQUIRED.has(dir) || dir.startsWith('v0-legacy/');

/** Cases skipped on purpose, with the OPA-visible behaviour that is out of reach. */
const SKIPS: Record<string, string> = {};

interface Row {
  cases: number;
  passed: number;
  failed: number;
  skipped: number;
  reasons: Set<string>;
  failures: string[];
}
const table = new Map<string, Row>();
function row(dir: string): Row {
  let r = table.get(dir);
  if (!r) table.set(dir, (r = { cases: 0, passed: 0, failed: 0, skipped: 0, reasons: new Set(), failures: [] }));
  return r;
}

const cases = loadCases();
const byDir = new Map<string, ConformanceCase[]>();
for (const c of cases) {
  let l = byDir.get(c.dir);
  if (!l) byDir.set(c.dir, (l = []));
  l.push(c);
}

for (const [dir, list] of byDir) {
  describe(dir, () => {
    for (const c of list) {
      const label = `${c.note} (${c.file}#${c.index})`;
      const skip = c.skip ? 'skipped by OPA itself' : SKIPS[c.note];
      if (skip) {
        it.skip(label, () => {});
        const r = row(dir);
        r.cases++;
        r.skipped++;
        r.reasons.add(skip);
        continue;
      }
      it(label, () => {
        const r = row(dir);
        r.cases++;
        let res: { ok: boolean; detail: string };
        try {
          res = runCase(c);
        } catch (e) {
          res = { ok: false, detail: 'runner crash: ' + String(e) };
        }
        if (res.ok) r.passed++;
        else {
          r.failed++;
          r.failures.push(`${label}: ${res.detail}`);
        }
        if (isRequired(dir)) expect(res.ok, res.detail).toBe(true);
      });
    }
  });
}

afterAll(() => {
  const lines: string[] = ['', 'directory'.padEnd(40) + 'cases  pass  fail  skip'];
  let t = [0, 0, 0, 0];
  for (const [dir, r] of [...table].sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(`${(dir + (isRequired(dir) ? '' : ' *')).padEnd(40)}${String(r.cases).padStart(5)} ${String(r.passed).padStart(5)} ${String(r.failed).padStart(5)} ${String(r.skipped).padStart(5)}${r.reasons.size ? '  ' + [...r.reasons].join('; ') : ''}`);
    t = [t[0]! + r.cases, t[1]! + r.passed, t[2]! + r.failed, t[3]! + r.skipped];
  }
  lines.push(`${'total'.padEnd(40)}${String(t[0]).padStart(5)} ${String(t[1]).padStart(5)} ${String(t[2]).padStart(5)} ${String(t[3]).padStart(5)}`);
  lines.push('(* = built-in directory, reported only)');
  console.log(lines.join('\n'));
  if (process.env.CONFORMANCE_FAILURES) {
    for (const r of table.values()) for (const f of r.failures) console.log('FAIL ' + f);
  }
});
