// `regolith eval` captures expression values as `opa eval` does (OPA's
// rewriteQueryToCaptureValue): --fail sees no result where a captured value is false.
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

describe('regolith eval: query value capture', () => {
  it('several expressions: a false value means no result, and --fail exits 1', () => {
    for (const q of ['input.enabled; true', 'false; true', 'x := false; x']) {
      const r = regolith(['eval', '--fail', '-I', q], { input: '{"enabled": false}' });
      expect(r.stdout, q).toBe('{}\n');
      expect(r.code, q).toBe(1);
    }
  });

  it('iteration drops the false values', () => {
    const r = JSON.parse(regolith(['eval', '[true, false, true][_]']).stdout) as { result: { expressions: { value: unknown }[] }[] };
    expect(r.result.map((x) => x.expressions[0]!.value)).toEqual([true, true]);
  });

  it('a lone false or comparison answers false (a defined result)', () => {
    const r = regolith(['eval', '--fail', '1 == 2']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ result: [{ expressions: [{ value: false, text: '1 == 2', location: { row: 1, col: 1 } }] }] });
    expect(regolith(['eval', '--fail', '-f', 'raw', 'false']).stdout).toBe('false\n');
  });
});
