// Package URLs: read, built from version keys and back, checked for the batch API; the
// full percent-encoding of API path values; and `SYSTEM/name@version` keys.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFull } from '../../../../src/integrations/package-insights/encode.js';
import { parseKey } from '../../../../src/integrations/package-insights/index.js';
import { PackageListError, checkBatchPurl, parsePurl, purlOf, versionKeyOfPurl, type System, type VersionKey } from '../../../../src/integrations/package-insights/packages/index.js';

describe('parsePurl', () => {
  it('reads an npm purl with a percent-encoded scope as its namespace', () => {
    expect(parsePurl('pkg:npm/%40angular/core@16.0.0')).toEqual({ type: 'npm', namespace: '@angular', name: 'core', version: '16.0.0' });
  });

  it('reads a maven purl: the group is the namespace', () => {
    expect(parsePurl('pkg:maven/org.apache.commons/commons-lang3@3.12.0')).toEqual({
      type: 'maven',
      namespace: 'org.apache.commons',
      name: 'commons-lang3',
      version: '3.12.0',
    });
  });

  it('reads a golang purl whose namespace has several segments', () => {
    expect(parsePurl('pkg:golang/github.com/gorilla/mux@v1.8.0')).toEqual({ type: 'golang', namespace: 'github.com/gorilla', name: 'mux', version: 'v1.8.0' });
  });

  it('reads a purl without namespace', () => {
    expect(parsePurl('pkg:pypi/django@4.2')).toEqual({ type: 'pypi', name: 'django', version: '4.2' });
  });

  it('reads a purl without version', () => {
    const p = parsePurl('pkg:cargo/serde');
    expect(p).toEqual({ type: 'cargo', name: 'serde' });
    expect(p.version).toBeUndefined();
  });

  it('reads qualifiers (keys lower-cased, values decoded) and subpath', () => {
    expect(parsePurl('pkg:maven/org.apache.xmlgraphics/batik-anim@1.9.1?Classifier=sources&repository_url=repo.spring.io%2Frelease#src/main/../java/./x')).toEqual({
      type: 'maven',
      namespace: 'org.apache.xmlgraphics',
      name: 'batik-anim',
      version: '1.9.1',
      qualifiers: { classifier: 'sources', repository_url: 'repo.spring.io/release' },
      subpath: 'src/main/java/x',
    });
  });

  it('lower-cases the type and tolerates slashes after pkg:', () => {
    expect(parsePurl('pkg://NPM/left-pad@1.3.0')).toEqual({ type: 'npm', name: 'left-pad', version: '1.3.0' });
  });

  it('takes an @ before the last slash as part of the path, not the version', () => {
    expect(parsePurl('pkg:npm/@types/node')).toEqual({ type: 'npm', namespace: '@types', name: 'node' });
  });

  it('refuses what is not a purl', () => {
    expect(() => parsePurl('npm/left-pad@1.3.0')).toThrow(PackageListError);
    expect(() => parsePurl('npm/left-pad@1.3.0')).toThrow(/must start with pkg:/);
    expect(() => parsePurl('pkg:npm')).toThrow(/has no type and name/);
    expect(() => parsePurl('pkg:npm/left-pad@%E0%A4%A')).toThrow(/not valid percent-encoding/);
  });
});

describe('versionKeyOfPurl', () => {
  it.each<[string, VersionKey]>([
    ['pkg:golang/github.com/gorilla/mux@v1.8.0', { system: 'GO', name: 'github.com/gorilla/mux', version: 'v1.8.0' }],
    ['pkg:npm/%40angular/core@16.0.0', { system: 'NPM', name: '@angular/core', version: '16.0.0' }],
    ['pkg:npm/lodash@4.17.21', { system: 'NPM', name: 'lodash', version: '4.17.21' }],
    ['pkg:cargo/serde@1.0.188', { system: 'CARGO', name: 'serde', version: '1.0.188' }],
    ['pkg:maven/org.apache.commons/commons-lang3@3.12.0', { system: 'MAVEN', name: 'org.apache.commons:commons-lang3', version: '3.12.0' }],
    ['pkg:pypi/django@4.2', { system: 'PYPI', name: 'django', version: '4.2' }],
    ['pkg:nuget/Newtonsoft.Json@13.0.3', { system: 'NUGET', name: 'Newtonsoft.Json', version: '13.0.3' }],
  ])('%s', (purl, key) => {
    expect(versionKeyOfPurl(purl)).toEqual(key);
  });

  it('refuses a type the service does not know', () => {
    expect(() => versionKeyOfPurl('pkg:gem/rails@7.0.0')).toThrow(PackageListError);
    expect(() => versionKeyOfPurl('pkg:gem/rails@7.0.0')).toThrow(/purl type "gem"/);
  });

  it('refuses a purl without version', () => {
    expect(() => versionKeyOfPurl('pkg:npm/lodash')).toThrow(PackageListError);
    expect(() => versionKeyOfPurl('pkg:npm/lodash')).toThrow(/has no version/);
    expect(() => versionKeyOfPurl('pkg:npm/lodash@')).toThrow(/has no version/);
  });
});

describe('checkBatchPurl', () => {
  it('accepts a versioned purl without qualifiers or subpath', () => {
    expect(() => checkBatchPurl('pkg:npm/%40angular/core@16.0.0')).not.toThrow();
  });

  it('refuses qualifiers', () => {
    expect(() => checkBatchPurl('pkg:maven/org.apache.commons/commons-lang3@3.12.0?type=jar')).toThrow(PackageListError);
    expect(() => checkBatchPurl('pkg:maven/org.apache.commons/commons-lang3@3.12.0?type=jar')).toThrow(/has qualifiers/);
  });

  it('refuses a subpath', () => {
    expect(() => checkBatchPurl('pkg:golang/github.com/gorilla/mux@v1.8.0#internal')).toThrow(/has a subpath/);
  });

  it('refuses a purl without version', () => {
    expect(() => checkBatchPurl('pkg:pypi/django')).toThrow(/has no version/);
  });
});

// Characters that purls and keys treat specially, mixed with arbitrary printable graphemes
// (any script, emoji, combining marks).
const special = fc.constantFrom('@', '/', ':', '%', '?', '#', ' ', '&', '=', '.', '!', '*', "'", '(', ')', '~', '+');
const unit = fc.oneof(special, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }));
const text = fc.string({ unit, minLength: 1, maxLength: 16 });
// A path segment. npm, Go and Maven names are split on `/` into the purl's namespace
// segments, and the purl spec drops empty segments (`a//b` is `a/b`, and `a/` is `a`), so
// such names are ambiguous there; no registry holds one (npm scopes and names, Go module
// path elements and Maven group ids are never empty), so those names are built from
// non-empty segments.
const segment = text.filter((s) => !s.includes('/'));
const segments = (max: number): fc.Arbitrary<string> => fc.array(segment, { minLength: 1, maxLength: max }).map((xs) => xs.join('/'));

const nameOf: Record<System, fc.Arbitrary<string>> = {
  GO: segments(4),
  NPM: fc.oneof(segment, fc.tuple(segment, segment).map(([scope, n]) => `@${scope}/${n}`), segments(3)),
  // group:artifact; the group ends at the first `:`
  MAVEN: fc.tuple(segments(3).filter((g) => !g.includes(':')), text.filter((a) => !a.includes(':'))).map(([g, a]) => `${g}:${a}`),
  // the whole name is one purl name, `/` encoded
  CARGO: text,
  PYPI: text,
  NUGET: text,
};
const versionKey: fc.Arbitrary<VersionKey> = fc
  .constantFrom<System>('GO', 'NPM', 'CARGO', 'MAVEN', 'PYPI', 'NUGET')
  .chain((system) => fc.record({ system: fc.constant(system), name: nameOf[system], version: text }));

describe('purlOf', () => {
  it.each<[VersionKey, string]>([
    [{ system: 'NPM', name: '@types/node', version: '20.1.0' }, 'pkg:npm/%40types/node@20.1.0'],
    [{ system: 'MAVEN', name: 'org.apache.commons:commons-lang3', version: '3.12.0' }, 'pkg:maven/org.apache.commons/commons-lang3@3.12.0'],
    [{ system: 'GO', name: 'github.com/gorilla/mux', version: 'v1.8.0' }, 'pkg:golang/github.com/gorilla/mux@v1.8.0'],
    [{ system: 'PYPI', name: 'django', version: '4.2' }, 'pkg:pypi/django@4.2'],
    [{ system: 'CARGO', name: 'serde', version: '1.0.0+build:1' }, 'pkg:cargo/serde@1.0.0%2Bbuild%3A1'],
  ])('%j is %s', (key, purl) => {
    expect(purlOf(key)).toBe(purl);
  });

  it('round-trips every version key through versionKeyOfPurl, and the batch API accepts it', () => {
    fc.assert(
      fc.property(versionKey, (k) => {
        const p = purlOf(k);
        expect(versionKeyOfPurl(p)).toEqual(k);
        expect(() => checkBatchPurl(p)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});

describe('encodeFull', () => {
  it('encodes what encodeURIComponent leaves alone', () => {
    expect(encodeFull('a/b')).toBe('a%2Fb');
    expect(encodeFull('@')).toBe('%40');
    expect(encodeFull(':')).toBe('%3A');
    expect(encodeFull("!'()*")).toBe('%21%27%28%29%2A');
    expect(encodeFull('pkg:npm/%40types/node@20.1.0')).toBe('pkg%3Anpm%2F%2540types%2Fnode%4020.1.0');
    expect(encodeFull('A-z_0.9~')).toBe('A-z_0.9~');
  });

  it('is undone by decodeURIComponent and leaves only unreserved characters and escapes', () => {
    for (const u of ['grapheme', 'binary'] as const) {
      fc.assert(
        fc.property(fc.string({ unit: u }), (s) => {
          const e = encodeFull(s);
          expect(e).toMatch(/^(?:[A-Za-z0-9\-_.~]|%[0-9A-F]{2})*$/);
          expect(decodeURIComponent(e)).toBe(s);
        }),
        { numRuns: 500 },
      );
    }
  });
});

describe('parseKey', () => {
  it('reads SYSTEM/name@version, the version after the last @', () => {
    expect(parseKey('NPM/@types/node@20.1.0')).toEqual({ system: 'NPM', name: '@types/node', version: '20.1.0' });
    expect(parseKey('MAVEN/g:a@1')).toEqual({ system: 'MAVEN', name: 'g:a', version: '1' });
    expect(parseKey('GO/github.com/gorilla/mux@v1.8.0')).toEqual({ system: 'GO', name: 'github.com/gorilla/mux', version: 'v1.8.0' });
  });

  it('accepts the system in lower case', () => {
    expect(parseKey('pypi/django@4.2')).toEqual({ system: 'PYPI', name: 'django', version: '4.2' });
    expect(parseKey('Cargo/serde@1.0.188')).toEqual({ system: 'CARGO', name: 'serde', version: '1.0.188' });
  });

  it.each(['', 'lodash@4.17.21', 'NPM/lodash', 'NPM/@4.17.21', 'NPM/lodash@', 'NPM/@types/node', 'GEM/rails@7.0.0', '/lodash@1', 'NPM@1/x'])('refuses %j', (s) => {
    expect(parseKey(s)).toBeUndefined();
  });
});
