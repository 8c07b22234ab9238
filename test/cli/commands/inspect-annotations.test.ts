// `regolith inspect -a/--annotations` (opa inspect's): the METADATA blocks of a bundle's
// modules, one entry per block sorted by target path, in OPA's pretty ANNOTATIONS section
// and as OPA's AnnotationsRef JSON (annotations, location of the annotated node, path terms).

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '../../bundle/helpers.js';
import { cli } from '../run-in-process.js';

const POLICY = [
  '# METADATA',
  '# title: The package',
  '# description: What it decides',
  '# organizations: [acme]',
  'package a.b',
  '',
  '# METADATA',
  '# entrypoint: true',
  'p.q[x] := 1 if x := 1',
  '',
  '# METADATA',
  '# title: Allow',
  '# scope: document',
  '# authors:',
  '# - John Doe <jd@example.com>',
  '# related_resources:',
  '# - ref: https://example.com/doc',
  '#   description: the doc',
  '# schemas:',
  '# - input: schema.input',
  '# custom:',
  '#   severity: high',
  'allow if true',
  '',
  'plain if true',
  '',
].join('\n');

function bundle(): string {
  return join(writeTree({ 'b/x.rego': POLICY, 'b/data.json': '{}' }), 'b');
}

describe('inspect -a/--annotations', () => {
  it("prints OPA's ANNOTATIONS section after the namespaces", async () => {
    const dir = bundle();
    const r = await cli(['inspect', '-a', dir]);
    expect(r.code).toBe(0);
    const text = r.stdout.slice(r.stdout.indexOf('ANNOTATIONS:'));
    const file = join(dir, 'x.rego');
    expect(text).toBe(
      [
        'ANNOTATIONS:',
        'The package',
        '===========',
        '',
        'What it decides',
        '',
        'Package:  a.b',
        `Location: ${file}:5`,
        'Scope: package',
        '',
        'Organizations:',
        ' acme',
        '',
        'Allow',
        '=====',
        '',
        'Package:  a.b',
        'Rule:     allow',
        `Location: ${file}:23`,
        'Scope: document',
        '',
        'Authors:',
        ' John Doe <jd@example.com>',
        '',
        'Schemas:',
        ' input: schema.input',
        '',
        'Related Resources:',
        ' https://example.com/doc the doc',
        '',
        'Custom:',
        ' severity: "high"',
        '',
        'a.b.p.q',
        '=======',
        '',
        'Package:  a.b',
        'Rule:     p.q[x]',
        `Location: ${file}:9`,
        'Scope: rule',
        'Entrypoint: true',
        '',
        '',
      ].join('\n'),
    );
  });

  it('without -a there is no ANNOTATIONS section', async () => {
    const r = await cli(['inspect', bundle()]);
    expect(r.stdout).not.toContain('ANNOTATIONS');
  });

  it("--format json adds OPA's annotations list", async () => {
    const dir = bundle();
    const r = await cli(['inspect', '-a', '--format', 'json', dir]);
    const info = JSON.parse(r.stdout) as { annotations: { annotations: Record<string, unknown>; location: unknown; path: unknown }[] };
    expect(info.annotations).toHaveLength(3);
    expect(info.annotations[0]).toEqual({
      annotations: { description: 'What it decides', organizations: ['acme'], scope: 'package', title: 'The package' },
      location: { file: join(dir, 'x.rego'), row: 5, col: 1 },
      path: [{ type: 'var', value: 'data' }, { type: 'string', value: 'a' }, { type: 'string', value: 'b' }],
    });
    expect(Object.keys(info.annotations[1]!.annotations)).toEqual(['authors', 'custom', 'related_resources', 'schemas', 'scope', 'title']);
    expect(info.annotations[1]!.annotations['schemas']).toEqual([
      { path: [{ type: 'var', value: 'input' }], schema: [{ type: 'var', value: 'schema' }, { type: 'string', value: 'input' }] },
    ]);
    expect(info.annotations[2]!.annotations).toEqual({ entrypoint: true, scope: 'rule' });
    const plain = JSON.parse((await cli(['inspect', '--format', 'json', dir])).stdout) as Record<string, unknown>;
    expect(plain['annotations']).toBeUndefined();
  });
});

describe('inspect <file.rego>', () => {
  it('summarises one Rego file (its namespace, and its annotations with -a), as opa inspect does', async () => {
    const file = join(bundle(), 'x.rego');
    const r = await cli(['inspect', '-a', '--format', 'json', file]);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout) as { namespaces: Record<string, string[]>; annotations: unknown[] };
    expect(info.namespaces).toEqual({ 'data.a.b': [file] });
    expect(info.annotations).toHaveLength(3);
    const pretty = await cli(['inspect', file]);
    expect(pretty.stdout).toContain('| data.a.b  |');
    expect(pretty.stdout).not.toContain('ANNOTATIONS');
  });
});
