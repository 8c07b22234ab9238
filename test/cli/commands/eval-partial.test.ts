// regolith eval --partial: what opa eval --partial prints, in each format.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, regolith } from '../helpers.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'regolith-partial-'));
  writeFileSync(
    join(dir, 'filters.rego'),
    `package filters

default allow := false

allow if input.row.owner == input.user

allow if {
	input.row.public
	not input.row.archived
}

size(r) := "big" if r.n > 10
else := "small"

big if size(input.row) == "big"
`,
  );
  writeFileSync(join(dir, 'input.json'), '{"user": "bob"}');
}, 300_000); // the build ensureBuilt may run takes minutes on a loaded machine

const args = (...rest: string[]) => ['eval', '-d', join(dir, 'filters.rego'), '-i', join(dir, 'input.json'), '--partial', '--unknowns', 'input.row', ...rest];

describe('regolith eval --partial', () => {
  it('--format json gives {"partial": {"queries", "modules"}} in OPA\'s JSON AST', () => {
    const r = regolith(args('data.filters.allow == true'));
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { partial: { queries: { terms: unknown }[][]; modules?: unknown[] } };
    expect(out.partial.queries).toHaveLength(2);
    expect(out.partial.queries[0]![0]!.terms).toEqual([
      { type: 'ref', value: [{ type: 'var', value: 'equal' }] },
      { type: 'ref', value: [{ type: 'var', value: 'input' }, { type: 'string', value: 'row' }, { type: 'string', value: 'owner' }] },
      { type: 'string', value: 'bob' },
    ]);
    expect(out.partial.modules).toBeUndefined();
  });

  it('--format source prints the queries and support modules as Rego', () => {
    const r = regolith(args('-f', 'source', 'data.filters.big'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('# Query 1\ndata.partial.filters.size(input.row, __p');
    expect(r.stdout).toContain('# Module 1\npackage partial.filters');
    expect(r.stdout).toContain('else := "small"');
  });

  it('--format pretty prints a table of queries and support', () => {
    const r = regolith(args('-f', 'pretty', 'data.filters.allow == true'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\| Query 1 \| input\.row\.owner == "bob"\s+\|/);
    expect(r.stdout).toMatch(/\| Query 2 \| input\.row\.public\s+\|\n\|\s+\| not input\.row\.archived\s+\|/);
  });

  it('--explain full prints the trace before the table: inlined rules entered, saved expressions as saved', () => {
    const r = regolith(args('-f', 'pretty', '--explain', 'full', 'data.filters.allow == true'));
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^query:1\s+Enter data\.filters\.allow == true$/);
    expect(r.stdout).toMatch(/filters\.rego:5\s+\| Enter data\.filters\.allow/);
    // the known user is plugged into what is saved
    expect(r.stdout).toMatch(/filters\.rego:5\s+\| \| Save input\.row\.owner == "bob"/);
    expect(r.stdout).toMatch(/\| \| Save not input\.row\.archived/);
    expect(r.stdout.indexOf('Exit')).toBeLessThan(r.stdout.indexOf('| Query 1 |'));
    const json = JSON.parse(regolith(args('--explain', 'full', 'data.filters.allow == true')).stdout) as { explanation: { op: string }[] };
    expect(json.explanation.map((e) => e.op)).toEqual(expect.arrayContaining(['enter', 'eval', 'save', 'exit']));
  });

  it('--fail exits non-zero when no query can be true; --fail-defined when one can', () => {
    const never = regolith(['eval', '-d', join(dir, 'filters.rego'), '--partial', '-u', 'input.row', '--fail', 'data.filters.allow == true; false']);
    expect(never.code).toBe(1);
    expect(JSON.parse(never.stdout)).toEqual({ partial: {} });
    const some = regolith(args('--fail-defined', 'data.filters.allow == true'));
    expect(some.code).toBe(1);
  });

  it('a bad unknown is an error in OPA\'s shape', () => {
    const r = regolith(['eval', '--partial', '-u', 'nope.x', 'true']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).errors[0].message).toContain('invalid unknown');
  });
});
