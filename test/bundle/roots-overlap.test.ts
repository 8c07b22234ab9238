// OPA's refusal of bundles activated together whose roots overlap (bundle/store.go
// hasRootsOverlap): the wording names bundles with an empty root apart.

import { describe, expect, it } from 'vitest';
import { rootsOverlapMessage } from '../../src/bundle/roots.js';

describe('rootsOverlapMessage', () => {
  it('is undefined for disjoint roots and for a single bundle', () => {
    expect(rootsOverlapMessage([{ name: 'a', roots: ['a'] }, { name: 'b', roots: ['b', 'ab'] }])).toBeUndefined();
    expect(rootsOverlapMessage([{ name: 'a', roots: [''] }])).toBeUndefined();
  });

  it('names the bundles and every conflict, sorted', () => {
    expect(rootsOverlapMessage([{ name: 'b', roots: ['x/y'] }, { name: 'a', roots: ['x', 'z'] }, { name: 'c', roots: ['z'] }])).toBe(
      'detected overlapping roots in manifests for these bundles: [a, b, c] (root z is in multiple bundles, x overlaps x/y)',
    );
  });

  it('bundles without a manifest own everything: the empty-root wording', () => {
    expect(rootsOverlapMessage([{ name: './b1', roots: ['x'] }, { name: './b2', roots: [''] }])).toBe(
      "bundles [./b1, ./b2] have overlapping roots and cannot be activated simultaneously because bundle(s) [./b2] specify empty root paths ('') which overlap with any other bundle root",
    );
  });
});
