// One log format per stream (issue 28): the server's lines, the request log and the
// decision-log and status plugins' console output all in the --log-format asked for, with
// OPA's field names (level as a word, time as RFC 3339, msg).

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/helpers.js';
import { waitFor } from '../loopback.js';
import { startRun } from './run-process.js';

let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'regolith-logging-'));
  writeFileSync(join(dir, 'p.rego'), 'package app\n\nallow := true\n');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ decision_logs: { console: true }, status: { console: true } }));
}, 300_000);

async function decide(url: string): Promise<void> {
  const res = await fetch(url + '/v1/data/app/allow', { method: 'POST', body: '{"input":{}}' });
  expect(res.status).toBe(200);
}

describe('regolith run --server logging', () => {
  it('--log-format json: every line, the console decision log and status included, in OPA\'s shape', async () => {
    const run = await startRun(['--log-format', 'json', '-c', join(dir, 'config.json'), join(dir, 'p.rego')]);
    try {
      await decide(run.url);
      await waitFor('the console decision log', () => run.output().includes('"Decision Log"'), 10_000);
      await waitFor('the console status', () => run.output().includes('"Status Log"') || run.output().includes('openpolicyagent.org/status'), 10_000);
    } finally {
      await run.kill('SIGTERM');
    }
    const lines = run.output().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(typeof entry['level'], line).toBe('string');
      expect(entry['time'], line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(typeof entry['msg'], line).toBe('string');
    }
  }, 90_000);

  it('--log-format text: the console decision log is text too', async () => {
    const run = await startRun(['--log-format', 'text', '-c', join(dir, 'config.json'), join(dir, 'p.rego')]);
    try {
      await decide(run.url);
      await waitFor('the console decision log', () => run.output().includes('Decision Log'), 10_000);
    } finally {
      await run.kill('SIGTERM');
    }
    const lines = run.output().split('\n').filter(Boolean);
    for (const line of lines) expect(line, line).not.toMatch(/^\{/);
  }, 90_000);
});
