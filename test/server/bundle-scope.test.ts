// The ownership rules of bundle-scope.ts on their own: which paths a set of recorded
// bundle manifests owns, with OPA's messages.

import { describe, expect, it } from 'vitest';
import { checkBundleScope } from '../../src/server/bundle-scope.js';
import { HttpError } from '../../src/server/errors.js';
import { newPlainObject, type PlainObject } from '../../src/value/index.js';

function data(bundles: Record<string, unknown>): PlainObject {
  const d = newPlainObject();
  d['system'] = { bundles } as PlainObject;
  return d;
}

function refusal(d: PlainObject, path: string[]): string | undefined {
  try {
    checkBundleScope(d, path);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(400);
    expect((e as HttpError).body.code).toBe('invalid_parameter');
    return (e as HttpError).body.message;
  }
}

describe('checkBundleScope', () => {
  it('allows everything when no bundle is active', () => {
    expect(refusal(newPlainObject(), [])).toBeUndefined();
    expect(refusal(data({}), [])).toBeUndefined();
    expect(refusal(data({}), ['a'])).toBeUndefined();
  });
  it('owns a root, what is under it and what is above it, segment-wise', () => {
    const d = data({ b1: { manifest: { revision: '1', roots: ['a/b', 'x'] } } });
    expect(refusal(d, ['a', 'b'])).toBe('path a/b is owned by bundle "b1"');
    expect(refusal(d, ['a', 'b', 'c'])).toBe('path a/b/c is owned by bundle "b1"');
    expect(refusal(d, ['a'])).toBe('path a is owned by bundle "b1"');
    expect(refusal(d, ['x', '0'])).toBe('path x/0 is owned by bundle "b1"');
    expect(refusal(d, ['a', 'bc'])).toBeUndefined();
    expect(refusal(d, ['xy'])).toBeUndefined();
    expect(refusal(d, [])).toBe("can't write to document root with bundle roots configured");
  });
  it('a bundle with the empty root, or no recorded roots, owns every path', () => {
    expect(refusal(data({ all: { manifest: { revision: '1', roots: [''] } } }), ['z'])).toBe('all paths owned by bundle "all"');
    expect(refusal(data({ bare: { manifest: { revision: '1' } } }), ['z'])).toBe('all paths owned by bundle "bare"');
  });
  it('escapes path segments as OPA prints storage paths', () => {
    const d = data({ b: { manifest: { roots: ['a b'] } } });
    expect(refusal(d, ['a b', 'c'])).toBe('path a%20b/c is owned by bundle "b"');
  });
});
