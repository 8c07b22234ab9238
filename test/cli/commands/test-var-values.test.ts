// `regolith test --var-values` (opa test's): a failing test's report shows the expression it
// failed on with its variables' values drawn under it, and -p/--parallel runs tests side by
// side while the report keeps their file order.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../run-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'regolith-var-values-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'vv_test.rego');
writeFileSync(
  file,
  [
    'package vv',
    '',
    'test_sum if {',
    '\tx := 1',
    '\ty := 2',
    '\tz := 3',
    '\tx == y + z',
    '}',
    '',
    'test_count if {',
    '    a := [1, 2]',
    '    count(a) == 3',
    '}',
    '',
    'test_unbound if {',
    '    x := 1',
    '    x == 2',
    '}',
    '',
    'test_ok if { 1 == 1 }',
    '',
  ].join('\n'),
);

describe('test --var-values', () => {
  it("prints the failing expression with each variable's value under it, tabs kept (OPA's PrettyEvent)", async () => {
    const r = await cli(['test', '--var-values', '--run', 'test_sum', file]);
    expect(r.code).toBe(2);
    const failures = r.stdout.slice(r.stdout.indexOf('FAILURES'));
    expect(failures).toMatch(/^FAILURES\n-{80}\ndata\.vv\.test_sum: FAIL \([^)]+\)\n\n/);
    expect(failures).toContain(
      [`  ${file}:7:`, '    \tx == y + z', '    \t|    |   |', '    \t|    |   3', '    \t|    2', '    \t1', '', '-'.repeat(80), 'FAIL: 1/1'].join('\n'),
    );
  });

  it('lines arrows up under space-indented expressions and function arguments', async () => {
    const r = await cli(['test', '--var-values', '--run', 'test_count', file]);
    expect(r.stdout).toContain([`  ${file}:12:`, '        count(a) == 3', '              |', '              [1, 2]', ''].join('\n'));
  });

  it('without --var-values the failure is listed with no FAILURES section (as before)', async () => {
    const r = await cli(['test', '--run', 'test_sum', file]);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain('FAILURES');
    expect(r.stdout).not.toContain('x == y + z');
  });

  it('-v --var-values adds the values column to the trace lines', async () => {
    const r = await cli(['test', '-v', '--var-values', '--run', 'test_unbound', file]);
    expect(r.stdout).toMatch(/\| \| Fail x == 2 +\{x: 1\}\n/);
    expect(r.stdout).toContain(['        x == 2', '        |', '        1'].join('\n'));
  });

  it('--format json carries the trace events with their locals', async () => {
    const r = await cli(['test', '--var-values', '--format', 'json', '--run', 'test_sum', file]);
    const [result] = JSON.parse(r.stdout) as { trace: { op: string; locals: { key: unknown; value: unknown }[] }[] }[];
    const fail = result!.trace.find((e) => e.op === 'fail' && e.locals.length > 0)!;
    expect(fail.locals).toContainEqual({ key: { type: 'var', value: 'x' }, value: { type: 'number', value: 1 } });
  });
});

describe('test -p/--parallel', () => {
  it('runs waiting tests side by side and reports them in file order', async () => {
    // Each test waits ~300 ms on a server that answers late; four of them in parallel take
    // about one wait, one after another about four.
    const { createServer } = await import('node:http');
    const server = createServer((_q, s) => void setTimeout(() => s.end('{}'), 300));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as { port: number }).port;
    const p = join(dir, 'slow_test.rego');
    const test = (n: number) => `test_${n} if http.send({"method": "GET", "url": "http://127.0.0.1:${port}/${n}", "force_cache": false}).status_code == 200`;
    writeFileSync(p, ['package slow', '', ...[4, 3, 2, 1].map(test), ''].join('\n'));
    try {
      const t0 = Date.now();
      const serial = await cli(['test', '-p', '1', '--format', 'json', p]);
      const serialMs = Date.now() - t0;
      const t1 = Date.now();
      const parallel = await cli(['test', '-p', '4', '--format', 'json', p]);
      const parallelMs = Date.now() - t1;
      expect(parallel.code).toBe(0);
      expect((JSON.parse(parallel.stdout) as { name: string }[]).map((x) => x.name)).toEqual(['test_4', 'test_3', 'test_2', 'test_1']);
      expect(serialMs).toBeGreaterThanOrEqual(1200);
      expect(parallelMs).toBeLessThan(serialMs - 600);
      expect(serial.code).toBe(0);
      // -p 0: OPA's explicit "as many as there are CPUs"
      expect((await cli(['test', '-p', '0', p])).stdout).toContain('PASS: 4/4');
    } finally {
      server.close();
    }
  });
});
