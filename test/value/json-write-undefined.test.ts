// toJSONText and undefined: no Rego value is undefined, but JS objects handed to the writer
// (reports, status documents) may carry optional fields left undefined: written as
// JSON.stringify writes them, never a crash.

import { describe, expect, it } from 'vitest';
import { toJSONText, type Value } from '../../src/value/index.js';

describe('toJSONText with undefined', () => {
  it('leaves out undefined fields and writes undefined array items as null, as JSON.stringify does', () => {
    const v = { a: 1, b: undefined, c: [1, undefined, { d: undefined, e: 'x' }] } as unknown as Value;
    expect(toJSONText(v)).toBe(JSON.stringify({ a: 1, c: [1, null, { e: 'x' }] }));
    expect(toJSONText({ only: undefined } as unknown as Value)).toBe('{}');
  });
});
