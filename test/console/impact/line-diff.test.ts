import { describe, expect, it } from 'vitest';
import { lineDiff, MAX_CELLS } from '../../../src/console/impact/line-diff.js';
import { policyDiff } from '../../../src/console/impact/policy-diff.js';

const show = (lines: { op: string; text: string }[] | undefined) => lines?.map((l) => `${l.op}${l.text}`);

describe('lineDiff', () => {
  it('keeps shared lines and marks removed and added ones in place', () => {
    const a = 'package p\n\nallow if input.user == "alice"\n\nallow if input.role == "admin"\n';
    const b = 'package p\n\nallow if input.role == "admin"\n\nallow if input.user == "carol"\n';
    expect(show(lineDiff(a, b))).toEqual([
      ' package p',
      ' ',
      '-allow if input.user == "alice"',
      '-',
      ' allow if input.role == "admin"',
      '+',
      '+allow if input.user == "carol"',
      ' ',
    ]);
  });

  it('gives back the old text from the shared and removed lines, the new from the shared and added', () => {
    const a = ['a', 'b', 'c', 'd', 'e', 'f'].join('\n');
    const b = ['x', 'b', 'd', 'c', 'e', 'y', 'f'].join('\n');
    const d = lineDiff(a, b)!;
    expect(d.filter((l) => l.op !== '+').map((l) => l.text).join('\n')).toBe(a);
    expect(d.filter((l) => l.op !== '-').map((l) => l.text).join('\n')).toBe(b);
    expect(d.filter((l) => l.op === ' ')).toHaveLength(4);
  });

  it('gives up on texts too large to compare', () => {
    const n = Math.ceil(Math.sqrt(MAX_CELLS)) + 1;
    const big = (c: string) => Array.from({ length: n }, (_, i) => `${c}${i}`).join('\n');
    expect(lineDiff(big('a'), big('b'))).toBeUndefined();
  });
});

describe('policyDiff', () => {
  it('names each file added, removed, changed or the same', () => {
    const d = policyDiff({ 'a.rego': 'package a\n', 'b.rego': 'package b\n', 'c.rego': 'package c\nx := 1\n' }, { 'a.rego': 'package a\n', 'c.rego': 'package c\nx := 2\n', 'd.rego': 'package d\n' });
    expect(d.map((f) => [f.file, f.status])).toEqual([['a.rego', 'same'], ['b.rego', 'removed'], ['c.rego', 'changed'], ['d.rego', 'added']]);
    expect(show(d[2]!.lines)).toEqual([' package c', '-x := 1', '+x := 2', ' ']);
    expect(d[0]!.lines).toBeUndefined();
  });
});
