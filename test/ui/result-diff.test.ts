// The impact page's result diff in words (ui/src/result-diff.ts).

import { describe, expect, it } from 'vitest';
import { describeOp, pointerRef } from '../../ui/src/result-diff.js';

describe('pointerRef', () => {
  it('reads a JSON pointer as a reference into the result', () => {
    expect(pointerRef('')).toBe('result');
    expect(pointerRef('/allowed')).toBe('result.allowed');
    expect(pointerRef('/reasons/1')).toBe('result.reasons[1]');
    expect(pointerRef('/a~1b/c~0d/x-y')).toBe('result["a/b"]["c~d"]["x-y"]');
  });
});

describe('describeOp', () => {
  it('says what happened to the value', () => {
    expect(describeOp({ op: 'replace', path: '', old: true, new: false })).toEqual({ ref: 'result', verb: 'changed from', old: 'true', new: 'false' });
    expect(describeOp({ op: 'add', path: '/reasons/2', new: 'late' })).toEqual({ ref: 'result.reasons[2]', verb: 'added:', new: '"late"' });
    expect(describeOp({ op: 'remove', path: '', old: true })).toEqual({ ref: 'result', verb: 'is now undefined, was', old: 'true' });
    expect(describeOp({ op: 'add', path: '', new: 1 })).toEqual({ ref: 'result', verb: 'was undefined, now', new: '1' });
  });
});
