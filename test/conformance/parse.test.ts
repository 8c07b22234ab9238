// Parses every module and query of every OPA conformance case with the case's Rego
// version. Cases whose expected error is a parse error must fail with rego_parse_error.

import { afterAll, describe, expect, it } from 'vitest';
import { parseModule, parseQuery, parseTerm, RegoParseError } from '../../src/lang/index.js';
import { hasOpaConformance } from '../opa-conformance.js';
import { loadCases, type ConformanceCase } from './cases.js';

const present = hasOpaConformance('parsing OPA\'s conformance cases');
const cases = present ? loadCases() : [];
interface Row {
  cases: number;
  passed: number;
  failed: number;
  skipped: number;
  reasons: Set<string>;
}
const table = new Map<string, Row>();
const failures: string[] = [];

function row(dir: string): Row {
  let r = table.get(dir);
  if (!r) table.set(dir, (r = { cases: 0, passed: 0, failed: 0, skipped: 0, reasons: new Set() }));
  return r;
}

/** Parses everything in a case; returns the first parse error, if any. */
function parseCase(c: ConformanceCase): RegoParseError | undefined {
  try {
    c.modules.forEach((m, i) => parseModule(m, { filename: `module-${i}.rego`, regoVersion: c.regoVersion }));
    if (c.query) parseQuery(c.query, { regoVersion: c.regoVersion });
    if (c.input_term) parseTerm(c.input_term, { regoVersion: c.regoVersion });
    return undefined;
  } catch (e) {
    if (e instanceof RegoParseError) return e;
    throw e;
  }
}

describe.runIf(present)('conformance: parse', () => {
  it(`parses ${cases.length} cases`, () => {
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const r = row(c.dir);
      r.cases++;
      const err = parseCase(c);
      const wantParseError = c.want_error_code === 'rego_parse_error';
      const ok = wantParseError ? err !== undefined : err === undefined;
      if (ok) r.passed++;
      else if (c.skip) {
        r.skipped++;
        r.reasons.add('skip: true (OPA skips it)');
      } else {
        r.failed++;
        failures.push(`${c.file} ${c.note}: ${err ? err.message : 'expected a parse error, got none'}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

afterAll(() => {
  if (!present) return;
  const lines = ['dir'.padEnd(40) + 'cases  passed  failed  skipped'];
  let tc = 0;
  let tp = 0;
  let tf = 0;
  let ts = 0;
  for (const [dir, r] of [...table.entries()].sort()) {
    tc += r.cases;
    tp += r.passed;
    tf += r.failed;
    ts += r.skipped;
    const reason = r.reasons.size ? `  (${[...r.reasons].join('; ')})` : '';
    lines.push(
      dir.padEnd(40) + String(r.cases).padStart(5) + String(r.passed).padStart(8) + String(r.failed).padStart(8) + String(r.skipped).padStart(9) + reason,
    );
  }
  lines.push('TOTAL'.padEnd(40) + String(tc).padStart(5) + String(tp).padStart(8) + String(tf).padStart(8) + String(ts).padStart(9));
  if (failures.length) lines.push('', 'failures:', ...failures.slice(0, 50));
  console.log(lines.join('\n'));
});
