// `regolith exec`: one decision per input file over bundles (-b, or configured), OPA's
// report shape, the --fail flags' exit decisions and messages, stdin input, errors.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { renderExecReport, runExec, type ExecFlags } from '../../../src/cli/commands/exec.js';
import { toJSONText, type Value } from '../../../src/engine/index.js';
import { tempDir, writeTree } from '../../bundle/helpers.js';
import { archive, gunzipJSON, httpServer, serveBundles } from '../../loopback.js';

const SILENT = pino({ level: 'silent' });
const json = (v: Value | undefined) => (v === undefined ? undefined : JSON.parse(toJSONText(v)));
const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/;

function flags(over: Partial<ExecFlags> = {}): ExecFlags {
  return { bundle: [], set: [], setFile: [], format: 'json', logLevel: 'error', logFormat: 'json', timeout: '0s', ...over } as ExecFlags;
}

function fixture(policy = 'package system\n\nmain contains "hello" if input.foo == 7\n'): { bundle: string; files: string } {
  const root = writeTree({
    'bundle/x.rego': policy,
    'files/a.json': '{"foo": 7}',
    'files/b.yaml': 'foo: 8',
    'files/sub/c.yml': 'foo: 7',
    'files/ignored.txt': 'garbage',
  });
  return { bundle: join(root, 'bundle'), files: join(root, 'files') };
}

describe('regolith exec (command functions)', () => {
  it('decides /system/main for every JSON and YAML file, walking directories in order', async () => {
    const { bundle, files } = fixture();
    const r = await runExec([files], flags({ bundle: [bundle] }), { logger: SILENT });
    expect(r.failure).toBeUndefined();
    expect(r.results.map((x) => [x.path.slice(files.length), json(x.result)])).toEqual([
      ['/a.json', ['hello']],
      ['/b.yaml', []],
      ['/sub/c.yml', ['hello']],
    ]);
    for (const x of r.results) expect(x.decision_id).toMatch(UUID);
  });

  it("reports an undefined decision as OPA's opa_undefined_error, with --decision as given", async () => {
    const { bundle, files } = fixture('package foo\n\nallow if input.foo == 7\n');
    const r = await runExec([join(files, 'a.json'), join(files, 'b.yaml')], flags({ bundle: [bundle], decision: 'foo/allow' }), { logger: SILENT });
    expect(r.results).toEqual([
      { result: true, decision_id: expect.stringMatching(UUID), path: join(files, 'a.json') },
      { error: { code: 'opa_undefined_error', message: 'foo/allow decision was undefined' }, path: join(files, 'b.yaml') },
    ]);
    const text = renderExecReport(r.results);
    expect(text).toBe(
      `{\n  "result": [\n    {\n      "result": true,\n      "decision_id": "${r.results[0]!.decision_id}",\n      "path": ${JSON.stringify(join(files, 'a.json'))}\n    },\n` +
        `    {\n      "error": {\n        "code": "opa_undefined_error",\n        "message": "foo/allow decision was undefined"\n      },\n      "path": ${JSON.stringify(join(files, 'b.yaml'))}\n    }\n  ]\n}\n`,
    );
  });

  it("counts failures and errors as OPA's reporter does for --fail and --fail-defined", async () => {
    const { bundle, files } = fixture('package system\n\nmain := true if input.foo == 7\n');
    const fail = await runExec([files], flags({ bundle: [bundle], fail: true }), { logger: SILENT });
    expect(fail.failure).toBe('there were 0 failures and 1 errors counted in the results list, and --fail is set');
    const failDefined = await runExec([files], flags({ bundle: [bundle], failDefined: true }), { logger: SILENT });
    expect(failDefined.failure).toBe('there were 2 failures and 0 errors counted in the results list, and --fail-defined is set');
    const allDefined = await runExec([join(files, 'a.json')], flags({ bundle: [bundle], fail: true }), { logger: SILENT });
    expect(allDefined.failure).toBeUndefined();
  });

  it('reads the input from stdin first (path --stdin-input); empty stdin is an error', async () => {
    const { bundle, files } = fixture();
    const r = await runExec([join(files, 'b.yaml')], flags({ bundle: [bundle], stdinInput: true }), { logger: SILENT, stdin: () => '{"foo": 7}' });
    expect(r.results.map((x) => [x.path, json(x.result)])).toEqual([['--stdin-input', ['hello']], [join(files, 'b.yaml'), []]]);
    await expect(runExec([], flags({ bundle: [bundle], stdinInput: true }), { logger: SILENT, stdin: () => ' ' })).rejects.toThrow(
      'exec error: cannot execute on empty input; please enter valid json or yaml when using the --stdin-input flag',
    );
  });

  it('reports a file that does not parse in its entry and goes on; an eval error keeps its code', async () => {
    const { bundle, files } = fixture('package system\n\nmain := 1 if input.foo == 7\n\nmain := 2 if input.foo == 7\n');
    writeFileSync(join(files, 'b.yaml'), 'a: [unclosed');
    const r = await runExec([join(files, 'a.json'), join(files, 'b.yaml'), join(files, 'sub')], flags({ bundle: [bundle], failDefined: true }), { logger: SILENT });
    expect(r.results[0]!.error).toMatchObject({ code: 'eval_conflict_error', message: 'complete rules must not produce multiple outputs' });
    expect(r.results[1]!.error!.message).toContain('b.yaml');
    expect(r.results[2]!.error).toMatchObject({ code: 'eval_conflict_error' });
    expect(r.failure).toBe('there were 0 failures and 3 errors counted in the results list, and --fail-defined is set');
  });

  it('takes bundles and the default decision from the configuration file and --set', async () => {
    const { bundle, files } = fixture('package authz\n\nallow if input.foo == 7\n');
    const cfg = join(tempDir(), 'config.yaml');
    writeFileSync(cfg, `bundles:\n  mine:\n    resource: file://${bundle}\n`);
    const r = await runExec([join(files, 'a.json')], flags({ configFile: cfg, set: ['default_decision=/authz/allow'] }), { logger: SILENT });
    expect(r.results).toEqual([{ result: true, decision_id: expect.stringMatching(UUID), path: join(files, 'a.json') }]);
  });

  it("refuses what OPA refuses: no paths, a bad flag value, a bundle that cannot be read", async () => {
    await expect(runExec([], flags(), { logger: SILENT })).rejects.toThrow('requires at least 1 path arg, or the --stdin-input flag');
    await expect(runExec(['x'], flags({ logLevel: 'loud' }), { logger: SILENT })).rejects.toThrow('invalid argument "loud" for "-l, --log-level" flag');
    await expect(runExec(['x'], flags({ timeout: 'soon' }), { logger: SILENT })).rejects.toThrow('invalid argument "soon" for "--timeout" flag');
    await expect(runExec(['x'], flags({ fail: true, failDefined: true }), { logger: SILENT })).rejects.toThrow('specify --fail or --fail-defined but not both');
    await expect(runExec([tempDir()], flags({ bundle: ['/no/such/bundle'] }), { logger: SILENT })).rejects.toThrow(/runtime error: bundle ~0/);
  });

  it('downloads configured service bundles once before the inputs and uploads the decisions once after', async () => {
    const bundles = await httpServer(serveBundles({ '/b.tar.gz': { body: await archive({ revision: 'r9', modules: { 'p.rego': 'package authz\n\nallow if input.user == "alice"\n' } }) } }));
    const events: Record<string, unknown>[] = [];
    const logs = await httpServer((req, res) => {
      events.push(...(gunzipJSON(req.body) as Record<string, unknown>[]));
      res.statusCode = 204;
      res.end();
    });
    try {
      const files = writeTree({ 'a.json': '{"user": "alice"}', 'b.json': '{"user": "bob"}' });
      const r = await runExec([files], flags({
        set: [`services.s.url=${bundles.url}`, 'bundles.main.service=s', 'bundles.main.resource=/b.tar.gz', `services.l.url=${logs.url}`, 'decision_logs.service=l'],
        decision: 'authz/allow',
      }), { logger: SILENT });
      expect(r.results.map((x) => x.result ?? x.error?.code)).toEqual([true, 'opa_undefined_error']);
      expect(bundles.requests.filter((q) => q.url.startsWith('/b.tar.gz'))).toHaveLength(1);
      expect(events.map((e) => [e.path, e.result, (e.bundles as Record<string, { revision: string }>).main?.revision])).toEqual([
        ['authz/allow', true, 'r9'],
        ['authz/allow', undefined, 'r9'],
      ]);
      expect(events[0]!.decision_id).toBe(r.results[0]!.decision_id);
    } finally {
      await bundles.close();
      await logs.close();
    }
  });
});

