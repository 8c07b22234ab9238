// --capabilities <file or version> on eval, check and test: a capabilities JSON file limits
// the built-ins policies and queries may call, a call to any other failing as OPA's
// `rego_type_error: undefined function <name>`; Regolith's own version name allows all, and
// another version is refused with the way out.

import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, regolith } from './helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const POLICY = 'package a\n\nshout := upper(input.name)\n\nn := count([1, 2])\n';
const TESTS = 'package a_test\n\nimport data.a\n\ntest_n if a.n == 2\n';

function setup(): { dir: string; policy: string; narrow: string; current: string } {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-caps-'));
  const policy = join(dir, 'a.rego');
  writeFileSync(policy, POLICY);
  writeFileSync(join(dir, 'a_test.rego'), TESTS);
  // Outside the policy directory: `test <dir>` would load JSON files there as data.
  const capsDir = mkdtempSync(join(tmpdir(), 'regolith-caps-files-'));
  const narrow = join(capsDir, 'caps-narrow.json');
  writeFileSync(narrow, JSON.stringify({ builtins: [{ name: 'count' }, { name: 'equal' }, { name: 'eq' }, { name: 'assign' }], features: ['rego_v1'] }));
  const current = join(capsDir, 'caps-current.json');
  writeFileSync(current, regolith(['capabilities', '--current']).stdout);
  return { dir, policy, narrow, current };
}

describe('--capabilities <file>', () => {
  it('eval: a built-in the file leaves out is an undefined function (OPA JSON error shape)', () => {
    const { policy, narrow } = setup();
    const r = regolith(['eval', '--capabilities', narrow, '-d', policy, 'data.a.n']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      errors: [{ code: 'rego_type_error', message: 'undefined function upper', location: { file: policy, row: 3, col: 10 } }],
    });
  });

  it('eval: the query itself is checked too', () => {
    const { narrow } = setup();
    const r = regolith(['eval', '--capabilities', narrow, '--format', 'pretty', 'x := lower("A")']);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain('rego_type_error: undefined function lower');
  });

  it('eval: the capabilities of `regolith capabilities --current` allow the policy', () => {
    const { policy, current } = setup();
    const r = regolith(['eval', '--capabilities', current, '-d', policy, '-I', '--format', 'raw', 'data.a.shout'], { input: '{"name":"ann"}' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ANN\n');
  });

  it('check: reports the undefined function in OPA pretty shape; passes with the current capabilities', () => {
    const { policy, narrow, current } = setup();
    const r = regolith(['check', '--capabilities', narrow, policy]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`1 error occurred: ${policy}:3: rego_type_error: undefined function upper`);
    expect(regolith(['check', '--capabilities', current, policy]).code).toBe(0);
  });

  it('test: the policy does not compile under narrower capabilities', () => {
    const { dir, narrow, current } = setup();
    const r = regolith(['test', '--capabilities', narrow, dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rego_type_error: undefined function upper');
    expect(regolith(['test', '--capabilities', current, dir]).code).toBe(0);
  });

  it('a file that is not a capabilities document is a clear error', () => {
    const { dir } = setup();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"builtins": {}}');
    const r = regolith(['eval', '--capabilities', bad, '1 == 1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}: "builtins" must be an array`);
  });
});

describe('--capabilities <version>', () => {
  it("regolith's own version allows every built-in; another version is refused naming the way out", () => {
    const mine = regolith(['capabilities']).stdout.trim();
    const ok = regolith(['eval', '--capabilities', mine, '--format', 'raw', 'upper("a")']);
    expect(ok.stdout).toBe('A\n');
    const r = regolith(['check', '--capabilities', 'v0.50.0', join(import.meta.dirname, 'helpers.ts')]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `error: no capabilities version found v0.50.0: Regolith bundles only its own capabilities (${mine}), not OPA's versioned files; ` +
        "give the capabilities JSON file itself (OPA's repository holds capabilities/v0.50.0.json), or start from `regolith capabilities --current`",
    );
  });
});

describe('--capabilities <file>: features, future_keywords, allow_net', () => {
  function caps(doc: Record<string, unknown>): string {
    const file = join(mkdtempSync(join(tmpdir(), 'regolith-caps-more-')), 'caps.json');
    const current = JSON.parse(regolith(['capabilities', '--current']).stdout) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...current, ...doc }));
    return file;
  }

  it('a file without the rego_v1 feature cannot compile v1 modules (an old OPA capabilities file); v0 ones it can', () => {
    const { policy } = setup();
    const old = caps({ features: ['rule_head_ref_string_prefixes'], future_keywords: ['in'] });
    const r = regolith(['eval', '--capabilities', old, '-d', policy, '--format', 'pretty', 'data.a.n']);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain('rego_parse_error: illegal capabilities: rego_v1 feature required for parsing v1 Rego');
    const v0 = join(mkdtempSync(join(tmpdir(), 'regolith-caps-v0-')), 'v0.rego');
    writeFileSync(v0, 'package b\n\nimport future.keywords.in\n\nn := count([x | x := [1, 2][_]; x in [1]])\n');
    const ok = regolith(['eval', '--v0-compatible', '--capabilities', old, '-d', v0, '--format', 'raw', 'data.b.n']);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toBe('1\n');
    writeFileSync(v0, 'package b\n\nimport future.keywords.every\n\nn := 1\n');
    const bad = regolith(['check', '--v0-compatible', '--capabilities', old, v0]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${v0}:3: rego_parse_error: unexpected keyword, must be one of [in]`);
  });

  it('allow_net: http.send and net.lookup_ip_addr reach only the hosts listed', () => {
    const file = caps({ allow_net: ['localhost'] });
    const denied = regolith(['eval', '--strict-builtin-errors', '--capabilities', file, '--format', 'pretty', 'http.send({"method": "get", "url": "http://127.0.0.1:1/x"})']);
    expect(denied.code).toBe(2);
    expect(denied.stdout + denied.stderr).toContain('eval_builtin_error: http.send: unallowed host: 127.0.0.1');
    const quiet = regolith(['eval', '--capabilities', file, '--format', 'raw', 'http.send({"method": "get", "url": "http://127.0.0.1:1/x", "raise_error": false}).error']);
    expect(JSON.parse(quiet.stdout)).toEqual({ code: 'eval_http_send_internal_error', message: 'unallowed host: 127.0.0.1' });
    // A listed host gets as far as the network (nothing listens on port 1).
    const allowed = regolith(['eval', '--capabilities', file, '--format', 'raw', 'http.send({"method": "get", "url": "http://localhost:1/x", "raise_error": false}).error.code']);
    expect(allowed.stdout).toBe('eval_http_send_network_error\n');
    const lookup = regolith(['eval', '--strict-builtin-errors', '--capabilities', file, '--format', 'pretty', 'net.lookup_ip_addr("example.com")']);
    expect(lookup.stdout + lookup.stderr).toContain('net.lookup_ip_addr: unallowed host: example.com');
  });
});
