// The insights document: every asked version ends up either in versions or in missing —
// never silently absent (a policy would then pass what it never saw).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDocument, keyOf } from '../../../src/integrations/package-insights/document.js';
import type { VersionKey } from '../../../src/integrations/package-insights/packages/index.js';

const key = fc.record({
  system: fc.constantFrom('GO', 'NPM', 'CARGO', 'MAVEN', 'PYPI', 'NUGET') as fc.Arbitrary<VersionKey['system']>,
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
  version: fc.stringMatching(/^\d\.\d{1,2}$/),
});

describe('buildDocument', () => {
  it('puts every asked key in exactly one of versions and missing, whatever the service answered', () => {
    fc.assert(
      fc.property(fc.uniqueArray(key, { selector: keyOf, maxLength: 30 }), fc.array(fc.constantFrom('found', 'empty', 'unanswered')), (asked, fates) => {
        const answers = asked.flatMap((k, i) => {
          const fate = fates[i % Math.max(1, fates.length)] ?? 'found';
          if (fate === 'unanswered') return [];
          return [{ key: k, version: fate === 'found' ? { versionKey: { ...k }, licenses: ['MIT'] } : undefined }];
        });
        const doc = buildDocument(asked, answers, []);
        const found = new Set(Object.keys(doc.versions));
        const missing = new Set(doc.missing);
        expect([...found].filter((k) => missing.has(k))).toEqual([]);
        expect([...found, ...missing].sort()).toEqual(asked.map(keyOf).sort());
        expect(doc.packages).toEqual(asked.map(keyOf).sort());
      }),
    );
  });

  it('maps each purl to its key, and a purl the service does not know is missing', () => {
    const v = { versionKey: { system: 'NPM', name: '@scope/a', version: '1.0.0' } };
    const doc = buildDocument([], [], [{ purl: 'pkg:npm/%40scope/a@1.0.0', result: { version: v } }, { purl: 'pkg:pypi/nothing@0.1' }]);
    expect(doc.purls).toEqual({ 'pkg:npm/%40scope/a@1.0.0': 'NPM/@scope/a@1.0.0', 'pkg:pypi/nothing@0.1': 'PYPI/nothing@0.1' });
    expect(doc.versions).toEqual({ 'NPM/@scope/a@1.0.0': v });
    expect(doc.missing).toEqual(['PYPI/nothing@0.1']);
  });
});
