// `regolith exec` end to end: OPA's report on stdout, --fail/--fail-defined exit codes with
// OPA's message, input from stdin.

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../../bundle/helpers.js';
import { ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

function fixture(): { bundle: string; files: string } {
  const root = writeTree({
    'bundle/x.rego': 'package authz\n\nallow if input.user == "alice"\n',
    'files/a.json': '{"user": "alice"}',
    'files/b.yaml': 'user: bob',
  });
  return { bundle: join(root, 'bundle'), files: join(root, 'files') };
}

describe('regolith exec', () => {
  it("prints OPA's report and exits 0, with nothing on stderr (opa exec logs at level error by default)", () => {
    const { bundle, files } = fixture();
    const r = regolith(['exec', '--decision', '/authz/allow', '-b', bundle, files]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { result: { path: string; result?: unknown; decision_id?: string; error?: unknown }[] };
    expect(report.result).toEqual([
      { result: true, decision_id: expect.stringMatching(/^[\da-f-]{36}$/), path: join(files, 'a.json') },
      { error: { code: 'opa_undefined_error', message: '/authz/allow decision was undefined' }, path: join(files, 'b.yaml') },
    ]);
    expect(r.stdout.startsWith('{\n  "result": [\n    {\n      "result": true,\n')).toBe(true);
  });

  it('exits 1 with --fail on an undefined decision and with --fail-defined on a defined one, logging the error as opa exec', () => {
    const { bundle, files } = fixture();
    const fail = regolith(['exec', '--decision', 'authz/allow', '-b', bundle, '--fail', files]);
    expect(fail.code).toBe(1);
    // one log line: OPA's logging.Get().WithFields({"err": err}).Error("Unexpected error.")
    expect(fail.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(fail.stderr)).toMatchObject({
      level: 'error',
      msg: 'Unexpected error.',
      err: 'exec error: there were 0 failures and 1 errors counted in the results list, and --fail is set',
    });
    expect(JSON.parse(fail.stdout).result).toHaveLength(2);
    const defined = regolith(['exec', '--decision', 'authz/allow', '-b', bundle, '--fail-defined', join(files, 'a.json')]);
    expect(defined.code).toBe(1);
    expect(defined.stderr).toContain('there were 1 failures and 0 errors counted in the results list, and --fail-defined is set');
  });

  it('reads the input from stdin with --stdin-input', () => {
    const { bundle } = fixture();
    const r = regolith(['exec', '--decision', 'authz/allow', '-b', bundle, '--stdin-input'], { input: '{"user": "alice"}' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toEqual([{ result: true, decision_id: expect.any(String), path: '--stdin-input' }]);
    const none = regolith(['exec', '-b', bundle]);
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stderr)).toMatchObject({ level: 'error', msg: 'Unexpected error.', err: 'requires at least 1 path arg, or the --stdin-input flag' });
    // a flag's value is refused as OPA's flag parsing does: printed, not logged
    expect(regolith(['exec', '-f', 'pretty', '--stdin-input'])).toMatchObject({ code: 1, stderr: expect.stringContaining('invalid argument "pretty" for "-f, --format" flag') });
  });
});
