// `regolith eval --instrument`: OPA's instrumentation metrics for what Regolith measures —
// each expression calling a built-in is a sample of eval_op_builtin_call (its total as
// timer_eval_op_builtin_call_ns, its distribution as histogram_eval_op_builtin_call);
// calls of user functions are not counted.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../bundle/helpers.js';
import { cli } from '../run-in-process.js';

const dir = tempDir();
const policy = join(dir, 'i.rego');
writeFileSync(policy, 'package x\n\nallow if {\n\tstartswith(input.a, "b")\n\tcount(input.l) > 1\n\tf(1) == 2\n\ty := 3\n}\n\nf(x) := x + 1\n');
const input = join(dir, 'in.json');
writeFileSync(input, '{"a": "bc", "l": [1, 2]}');

type Metrics = Record<string, number | Record<string, number>>;

describe('eval --instrument', () => {
  it('adds OPA\'s eval_op_builtin_call timer and histogram to the metrics, one sample per built-in call', async () => {
    const r = await cli(['eval', '--instrument', '-d', policy, '-i', input, 'data.x.allow']);
    expect(r.code).toBe(0);
    const { metrics } = JSON.parse(r.stdout) as { metrics: Metrics };
    const h = metrics['histogram_eval_op_builtin_call'] as Record<string, number>;
    // startswith and count > 1; f(1) == 2 enters a user function (not counted), y := 3 is unification
    expect(h.count).toBe(2);
    expect(Object.keys(h)).toEqual(['75%', '90%', '95%', '99%', '99.9%', '99.99%', 'count', 'max', 'mean', 'median', 'min', 'stddev']);
    expect(metrics['timer_eval_op_builtin_call_ns']).toBeGreaterThan(0);
    expect(metrics['timer_rego_query_eval_ns']).toBeGreaterThan(0);
    expect(Object.keys(metrics)).toEqual([...Object.keys(metrics)].sort());
  });

  it('without --instrument (--metrics alone) there are no instrumentation metrics', async () => {
    const { metrics } = JSON.parse((await cli(['eval', '--metrics', '-d', policy, '-i', input, 'data.x.allow'])).stdout) as { metrics: Metrics };
    expect(metrics['timer_eval_op_builtin_call_ns']).toBeUndefined();
    expect(metrics['histogram_eval_op_builtin_call']).toBeUndefined();
  });

  it('the pretty metrics table shows the histogram as Go prints a map', async () => {
    const r = await cli(['eval', '--instrument', '-f', 'pretty', '-d', policy, '-i', input, 'data.x.allow']);
    expect(r.stdout).toMatch(/\| histogram_eval_op_builtin_call \| map\[75%:\d+(\.\d+)? 90%:[^\]]* count:2 [^\]]*\] \|/);
  });
});
