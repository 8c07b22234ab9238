// The REPL session (`regolith run` without --server), driven line by line as OPA's
// OneShot is: rules and queries, multi-line blocks, packages and imports, input from
// data.repl.input, the commands, and OPA's output shapes.

import { describe, expect, it } from 'vitest';
import { ReplSession } from '../../../src/cli/commands/repl/session.js';
import { parseModule, type Module, type PlainObject } from '../../../src/engine/index.js';

function session(opts: { modules?: Record<string, string>; data?: PlainObject; regoVersion?: 'v0' | 'v1' } = {}) {
  let out = '';
  const modules = new Map<string, Module>();
  for (const [file, text] of Object.entries(opts.modules ?? {})) modules.set(file, parseModule(text, { filename: file, regoVersion: opts.regoVersion ?? 'v1' }));
  const s = new ReplSession({ modules, data: opts.data ?? {}, regoVersion: opts.regoVersion ?? 'v1', write: (t) => (out += t) });
  /** Feeds lines; returns what they printed. */
  const run = async (...lines: string[]): Promise<string> => {
    out = '';
    for (const l of lines) await s.oneShot(l);
    return out;
  };
  return { s, run };
}

describe('REPL session', () => {
  it('evaluates queries: a single value bare, bindings as a table, undefined, errors located by row and column', async () => {
    const { run } = session({ data: { users: { alice: { role: 'admin' }, bob: { role: 'dev' } } } as PlainObject });
    expect(await run('1 + 2')).toBe('3\n');
    expect(await run('data.users[name].role == "admin"')).toBe('+---------+\n|  name   |\n+---------+\n| "alice" |\n+---------+\n');
    expect(await run('data.users.carol')).toBe('undefined\n');
    expect(await run('y')).toBe('1 error occurred: 1:1: rego_unsafe_var_error: var y is unsafe\n');
  });

  it("defines rules from := and = as OPA does, and says so; = on an existing rule compares", async () => {
    const { run } = session();
    expect(await run('x := 5')).toBe("Rule 'x' defined in package repl. Type 'show' to see rules.\n");
    expect(await run('x')).toBe('5\n');
    expect(await run('x := 6')).toBe("Rule 'x' re-defined in package repl. Type 'show' to see rules.\n");
    expect(await run('a = 1')).toBe("Rule 'a' defined in package repl. Type 'show' to see rules.\n");
    expect(await run('a = 1')).toBe('true\n');
    expect(await run('allow if x > 5')).toBe("Rule 'allow' defined in package repl. Type 'show' to see rules.\n");
    expect(await run('allow')).toBe('true\n');
  });

  it('buffers a line that does not parse alone until an empty line, then reads the block', async () => {
    const { s, run } = session();
    expect(await run('p contains v if {')).toBe('');
    expect(s.prompt()).toBe('| ');
    expect(await run('  some v in [1, 2]', '  v > 1', '}')).toBe('');
    expect(await run('')).toBe("Rule 'p' defined in package repl. Type 'show' to see rules.\n");
    expect(s.prompt()).toBe('> ');
    expect(await run('p')).toBe('[\n  2\n]\n');
    // A block that does not parse is reported when it ends.
    expect(await run('q if {', '  1 +', '')).toMatch(/^1 error occurred: \d+:\d+: rego_parse_error: /);
  });

  it('keeps one module per package: package switches, import adds, show prints the current one', async () => {
    const { run } = session();
    expect(await run('show')).toBe('no rules defined\n');
    await run('package repl.input', 'params := {"method": "POST"}', 'package opa.example', 'import input.params');
    expect(await run('is_post if params.method == "POST"')).toBe("Rule 'is_post' defined in package opa.example. Type 'show' to see rules.\n");
    expect(await run('is_post')).toBe('true\n');
    expect(await run('show')).toBe('package opa.example\n\nimport input.params\n\nis_post if params.method == "POST"\n');
    expect(await run('unset is_post', 'show')).toBe('package opa.example\n\nimport input.params\n');
    expect(await run('unset nothing')).toBe('warning: no matching rules in current module\n');
    expect(await run('unset-package opa.example', 'show')).toBe('no rules defined\n');
    expect(await run('unset-package nope')).toBe('warning: no matching package\n');
  });

  it('reads the loaded policies and data, and input from data.repl.input (a file under repl.input)', async () => {
    const { run } = session({
      modules: { 'authz.rego': 'package authz\n\nallow if input.user == data.admins[_]\n' },
      data: { admins: ['alice'], repl: { input: { user: 'alice' } } } as PlainObject,
    });
    expect(await run('data.authz.allow')).toBe('true\n');
    expect(await run('package authz', 'allow')).toBe('true\n');
  });

  it('switches output to json and back, and answers the other commands in their shapes', async () => {
    const { run } = session();
    const json = JSON.parse(await run('json', '[1, 2]'));
    expect(json).toEqual({ result: [{ expressions: [{ value: [1, 2], text: '[1, 2]', location: { row: 1, col: 1 } }] }] });
    expect(await run('x := 1')).toBe('');
    expect(await run('pretty', 'trace notes', 'show debug')).toBe(
      '{\n\t"explain": "notes",\n\t"metrics": false,\n\t"instrument": false,\n\t"profile": false,\n\t"strict-builtin-errors": false\n}\n',
    );
    expect(await run('trace notes', 'metrics', 'true')).toMatch(/^true\n\+-+\+-+\+\n\| +Metric +\| +Value +\|\n[\s\S]*timer_rego_query_eval_ns/);
    expect(await run('trace bogus')).toBe('invalid explain mode, expected one of: off, full, notes, fails, debug\n');
    expect(await run('help')).toContain('Commands\n========\n');
    expect(await run('help input')).toContain('\nInput\n=====\n');
    expect(await run('help nope')).toBe("unknown topic 'nope'\n");
  });

  it('types prints each query variable\'s type in OPA\'s syntax before the results, until toggled off', async () => {
    const { run } = session();
    expect(await run('types')).toBe('');
    const out = await run('x := [1, "a"]; y := {"k": {1}}; z := count(x)');
    expect(out.split('\n').slice(0, 3)).toEqual(['# x: array<number, string>', '# y: object<k: set[number]>', '# z: number']);
    expect(await run('some v in [1, "a", null]')).toMatch(/^# v: any<null, number, string>\n/);
    await run('types');
    expect(await run('w := 1')).not.toContain('# w');
  });

  it('instrument adds OPA\'s eval_op_builtin_call metrics to the metrics table', async () => {
    const { run } = session();
    await run('instrument');
    expect(await run('count([1, 2]) > 1')).toMatch(/histogram_eval_op_builtin_call \| map\[75%:[^\]]*count:1 /);
    expect(await run('count([1, 2]) > 1')).toContain('timer_eval_op_builtin_call_ns');
  });

  it('profiles every expression with profile (a table after the result; in json, a profile list), until toggled off', async () => {
    const { run } = session();
    await run('xs := [1, 2, 3]');
    const out = await run('profile', 'count([x | some x in xs; x > 1])');
    expect(out).toMatch(/^2\n\+-+/);
    expect(out).toMatch(/\| +Location +\|/);
    expect(out).toMatch(/\| count\(\[x \| some x in xs; x > 1\]\) \|\n/);
    const json = JSON.parse(await run('json', 'xs[0]'));
    expect(json.profile.length).toBeGreaterThan(0);
    expect(json.profile[0]).toMatchObject({ num_eval: expect.any(Number), location: { row: expect.any(Number) } });
    expect(JSON.parse(await run('profile', 'xs[0]')).profile).toBeUndefined();
    expect(await run('pretty', 'show debug')).toContain('"profile": false');
  });

  it('traces with trace (full) and notes', async () => {
    const { run } = session();
    const full = await run('trace', 'x := 1; x > 0');
    expect(full).toMatch(/^query:1 +Enter x := 1; x > 0$/m);
    const notes = await run('trace', 'notes', 'trace(sprintf("seen %d", [1]))');
    expect(notes).toContain('Note "seen 1"');
  });

  it('partially evaluates with unknown, and turns it off without arguments', async () => {
    const { run } = session();
    expect(await run('unknown')).toBe("usage: unknown <input/data reference> [<input/data reference> [...]] (hint: try 'input')\n");
    expect(await run('unknown input', 'input.x == 1')).toBe('+---------+--------------+\n| Query 1 | input.x == 1 |\n+---------+--------------+\n');
  });

  it('ends on exit', async () => {
    const { s } = session();
    expect(await s.oneShot('exit')).toBe(true);
    expect(await s.oneShot('1')).toBe(false);
  });
});

describe('REPL tab completion', () => {
  it('completes rule paths of the loaded and typed modules, and imports', async () => {
    const { s, run } = session({ modules: { 'a.rego': 'package authz\n\nallow := true\n\nadmins contains "x"\n' } });
    await run('import data.authz.allow', 'limit := 3');
    expect(s.complete('data.authz.a')).toEqual(['data.authz.admins', 'data.authz.allow']);
    expect(s.complete('data.r')).toEqual(['data.repl.limit']);
    expect(s.complete('nothing')).toEqual([]);
  });
});
