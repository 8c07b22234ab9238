// `regolith deps`: the dependencies of a query over -d files and -b bundles in OPA's two
// output shapes, and its errors.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dependencies, depsAction, renderDependencies, type DepsFlags } from '../../../src/cli/commands/deps.js';
import { tempDir, writeTree } from '../../bundle/helpers.js';

const POLICY = 'package policy\n\nallow if is_admin\n\nis_admin if "admin" in input.user.roles\n';

function flags(over: Partial<DepsFlags> = {}): DepsFlags {
  return { data: [], bundle: [], format: 'pretty', ignore: [], ...over } as DepsFlags;
}

describe('regolith deps (command functions)', () => {
  it("prints OPA's documented table for its example", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'policy.rego'), POLICY);
    const d = await dependencies('data.policy.allow', flags({ data: [join(dir, 'policy.rego')] }));
    expect(renderDependencies(d, 'pretty')).toBe(
      [
        '+------------------+----------------------+',
        '|  BASE DOCUMENTS  |  VIRTUAL DOCUMENTS   |',
        '+------------------+----------------------+',
        '| input.user.roles | data.policy.allow    |',
        '|                  | data.policy.is_admin |',
        '+------------------+----------------------+',
        '',
      ].join('\n'),
    );
  });

  it('shows one column when only one kind is there, nothing when there are none', () => {
    expect(renderDependencies({ base: [{ head: 'input', path: ['x'] }], virtual: [] }, 'pretty')).toBe(
      ['+----------------+', '| BASE DOCUMENTS |', '+----------------+', '| input.x        |', '+----------------+', ''].join('\n'),
    );
    expect(renderDependencies({ base: [], virtual: [] }, 'pretty')).toBe('');
  });

  it('writes {"base": [...], "virtual": [...]} with refs as OPA JSON terms, empty lists left out', async () => {
    const b = writeTree({ '.manifest': '{"roots": ["policy"]}', 'policy/p.rego': POLICY });
    const d = await dependencies('data.policy.is_admin', flags({ bundle: [b] }));
    expect(JSON.parse(renderDependencies(d, 'json'))).toEqual({
      base: [[{ type: 'var', value: 'input' }, { type: 'string', value: 'user' }, { type: 'string', value: 'roles' }]],
      virtual: [[{ type: 'var', value: 'data' }, { type: 'string', value: 'policy' }, { type: 'string', value: 'is_admin' }]],
    });
    expect(renderDependencies({ base: [], virtual: [] }, 'json')).toBe('{}\n');
  });

  it('reports parse and compile errors of the query and policies, and a bad format', async () => {
    await expect(dependencies('data.x[', flags())).rejects.toThrow(/1 error occurred: .*rego_parse_error/);
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.rego'), 'package bad\n\np if { x }\n');
    await expect(dependencies('data.bad.p', flags({ data: [dir] }))).rejects.toThrow(/rego_unsafe_var_error: var x is unsafe/);
    await expect(depsAction(['data.x'], flags({ format: 'table' }))).rejects.toThrow('invalid argument "table" for "-f, --format" flag: must be one of {pretty, json}');
  });
});
