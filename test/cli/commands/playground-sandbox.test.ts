// The console's playground runs its evaluations in a child process of the server: a policy
// that exhausts memory kills the child, not `regolith run`, and the next evaluation gets a
// fresh child. The built binary, as users run it.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers.js';
import { startRun, type RunProcess } from '../../runtime/run-process.js';

let run: RunProcess;
beforeAll(async () => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'regolith-console-'));
  writeFileSync(join(dir, 'p.rego'), 'package t\n\nallow if input.user == "alice"\n');
  run = await startRun([join(dir, 'p.rego')]);
}, 60_000);
afterAll(async () => {
  await run?.kill('SIGTERM');
});

const evaluate = async (module: string, query: string) => {
  const r = await fetch(`${run.url}/ui/api/eval`, { method: 'POST', body: JSON.stringify({ modules: { 'a.rego': module }, query }) });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
};

describe('the playground sandbox of regolith run', () => {
  it('serves the console pages', async () => {
    const r = await fetch(`${run.url}/ui`);
    expect(r.status).toBe(200);
    expect(await r.text()).toMatch(/<html/i);
  });

  it('evaluates in a child process; a memory bomb kills the child, never the server', async () => {
    expect((await evaluate('package a\n\nx := 1 + 2\n', 'data.a.x')).body.result[0].expressions[0].value).toBe(3);
    const bomb = await evaluate('package a\n\nx := count([1 | numbers.range(1, 4000)[_]; numbers.range(1, 4000)[_]; numbers.range(1, 4000)[_]])\n', 'data.a.x');
    expect(bomb.status).toBe(400);
    expect(bomb.body).toMatchObject({ code: 'evaluation_error' });
    expect(bomb.body.message).toMatch(/ran out of memory or crashed|time limit/);
    // the server still decides, and the playground works again
    const d = await fetch(`${run.url}/v1/data/t/allow`, { method: 'POST', body: JSON.stringify({ input: { user: 'alice' } }) });
    expect(((await d.json()) as { result: boolean }).result).toBe(true);
    expect((await evaluate('package a\n\ny := "again"\n', 'data.a.y')).body.result[0].expressions[0].value).toBe('again');
    expect(run.child.exitCode).toBeNull();
  }, 60_000);

  it('answers errors in OPA\'s shape with their location', async () => {
    const r = await evaluate('package a\n\nx := \n', 'data.a.x');
    expect(r.status).toBe(400);
    expect(r.body.errors[0].location).toMatchObject({ file: 'a.rego' });
    expect(r.body.errors[0].location.row).toBeGreaterThanOrEqual(3);
  });
});
