// `regolith eval --input-format tombstone`: a native crash report (Tombstone protobuf) as
// the input document of the built CLI, triaged by the shipped policy; the .proto travels
// inside the bundle (the snapshot of dist/ the CLI runs from holds no .proto file).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG, FINGERPRINT, fullBuffer } from '../../integrations/crash-reports/fixtures.js';
import { BIN, ROOT, ensureBuilt, regolith } from '../helpers.js';

beforeAll(() => ensureBuilt(), 300_000);

const dir = mkdtempSync(join(tmpdir(), 'regolith-tombstone-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const crash = join(dir, 'crash.pb');
const garbage = join(dir, 'garbage.pb');
const settings = join(dir, 'settings.json');
writeFileSync(crash, fullBuffer());
writeFileSync(garbage, fullBuffer().subarray(0, 700));
writeFileSync(settings, JSON.stringify({ crash_triage: { fingerprints: [FINGERPRINT] } }));
const POLICY = join(ROOT, 'policies/crash-triage/triage.rego');

describe('eval --input-format tombstone', () => {
  it('evaluates the shipped triage policy over a crash report file', () => {
    const r = regolith(['eval', '-d', POLICY, '-d', settings, '--input-format', 'tombstone', '-i', crash, '--format', 'raw', 'data.regolith.crash_triage.decision']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d).toMatchObject({ severity: 'critical', bucket: 'SIGSEGV:USE_AFTER_FREE:Renderer::draw(Frame*)', known_build: true });
    expect(d.reasons).toContain('signal SIGSEGV (SEGV_MTESERR)');
  });

  it('gives the policy the documented document: enum names, exact 64-bit hex, threads by tid', () => {
    const r = regolith(['eval', '--input-format', 'tombstone', '-i', crash, '--format', 'raw', '[input.arch, input.signal_info.fault_address, input.threads["4321"].registers[0].u64, input.causes[0].memory_error.heap.allocation_tid]']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(['ARM64', BIG.fault, BIG.x0, '18446744073709551614']);
  });

  it('reads the crash report from stdin with -I', () => {
    const r = spawnSync(process.execPath, [BIN, 'eval', '-I', '--input-format', 'tombstone', '--format', 'raw', 'input.signal_info.name'], { input: Buffer.from(fullBuffer()), encoding: 'utf8', cwd: ROOT });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('SIGSEGV');
  });

  it('a file that is not a Tombstone is an input error: exit 2 with the reason on stderr, as OPA reports input it cannot read', () => {
    const r = regolith(['eval', '--input-format', 'tombstone', '-i', garbage, 'input']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: unable to parse input from ${garbage}: crash report is not a valid Tombstone: \\S`));
    const pretty = regolith(['eval', '--input-format', 'tombstone', '-i', garbage, '--format', 'pretty', 'input']);
    expect(pretty.code).toBe(2);
    expect(pretty.stderr).toMatch(/crash report is not a valid Tombstone/);
    const missing = regolith(['eval', '--input-format', 'tombstone', '-i', join(dir, 'nope.pb'), 'input']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/open .*nope\.pb: no such file or directory/);
  });

  it('--input-format json|yaml force a text format; anything else is refused', () => {
    const yml = join(dir, 'in.yaml');
    writeFileSync(yml, 'user: alice\n');
    expect(regolith(['eval', '--input-format', 'yaml', '-i', yml, '--format', 'raw', 'input.user']).stdout.trim()).toBe('alice');
    const asJSON = regolith(['eval', '--input-format', 'json', '-i', yml, 'input.user']);
    expect(asJSON.code).toBe(2);
    expect(asJSON.stderr).toMatch(/unable to parse input from/);
    const bad = regolith(['eval', '--input-format', 'xml', '-i', yml, 'input']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/invalid argument "xml" for "--input-format" flag: must be one of \{json, yaml, tombstone\}/);
  });

  it('the schema is embedded in the bundle (no .proto file next to the built CLI)', () => {
    const files = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : [e.name]));
    expect(files(dirname(dirname(BIN))).filter((f) => f.endsWith('.proto'))).toEqual([]);
  });
});
