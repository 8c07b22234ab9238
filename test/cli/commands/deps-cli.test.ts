// `regolith deps` end to end: OPA's table and JSON on stdout, errors on stderr with exit 1.

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../../bundle/helpers.js';
import { ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

describe('regolith deps', () => {
  it('prints the dependencies of a query as a table and as JSON', () => {
    const dir = writeTree({ 'policy.rego': 'package policy\n\nallow if is_admin\n\nis_admin if "admin" in input.user.roles\n' });
    const r = regolith(['deps', '--data', join(dir, 'policy.rego'), 'data.policy.allow']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      '+------------------+----------------------+\n' +
        '|  BASE DOCUMENTS  |  VIRTUAL DOCUMENTS   |\n' +
        '+------------------+----------------------+\n' +
        '| input.user.roles | data.policy.allow    |\n' +
        '|                  | data.policy.is_admin |\n' +
        '+------------------+----------------------+\n',
    );
    const j = regolith(['deps', '-d', dir, '-f', 'json', 'data.policy.is_admin']);
    expect(JSON.parse(j.stdout)).toEqual({
      base: [[{ type: 'var', value: 'input' }, { type: 'string', value: 'user' }, { type: 'string', value: 'roles' }]],
      virtual: [[{ type: 'var', value: 'data' }, { type: 'string', value: 'policy' }, { type: 'string', value: 'is_admin' }]],
    });
  });

  it('refuses anything but one query, and reports parse errors', () => {
    expect(regolith(['deps'])).toMatchObject({ code: 1, stderr: 'error: specify exactly one query argument\n' });
    expect(regolith(['deps', 'a', 'b'])).toMatchObject({ code: 1, stderr: 'error: specify exactly one query argument\n' });
    const bad = regolith(['deps', 'data.x[']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('rego_parse_error');
  });
});
