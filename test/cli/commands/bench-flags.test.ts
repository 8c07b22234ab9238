// `regolith bench` with the rest of opa bench's flags: the query from --stdin or in a
// --package with --import, -s/--schema, -p/-u (partial evaluation benchmarked), -t rego;
// --e2e and its server flags refused with the alternative, never "unknown option".

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../bundle/helpers.js';
import { cli } from '../run-in-process.js';

const dir = tempDir();
const policy = join(dir, 'b.rego');
writeFileSync(policy, 'package b\n\nallow if input.user == "alice"\n');
const input = join(dir, 'in.json');
writeFileSync(input, '{"user": "alice"}');
const FAST = ['--benchtime', '0.05', '--no-metrics', '--format', 'json'];

function samples(stdout: string): number {
  return (JSON.parse(stdout) as { N: number }).N;
}

describe('bench: the query', () => {
  it('--package reads the query in that package (a bare rule name resolves)', async () => {
    const r = await cli(['bench', ...FAST, '-d', policy, '-i', input, '--package', 'b', 'allow']);
    expect(r.stderr).toBe('');
    expect(samples(r.stdout)).toBeGreaterThan(0);
    // without --package, `allow` is an unsafe variable
    expect((await cli(['bench', ...FAST, '-d', policy, '-i', input, 'allow'])).code).toBe(1);
  });

  it('--import makes an imported name usable in the query', async () => {
    const r = await cli(['bench', ...FAST, '-d', policy, '-i', input, '--import', 'data.b', 'b.allow']);
    expect(samples(r.stdout)).toBeGreaterThan(0);
  });

  it('--stdin and a query argument together are an error, as is neither', async () => {
    const both = await cli(['bench', ...FAST, '--stdin', '-d', policy, 'data.b.allow']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('specify query argument or --stdin but not both');
    const none = await cli(['bench', ...FAST, '-d', policy]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('specify query argument or --stdin');
  });
});

describe('bench -p/--partial', () => {
  it('benchmarks partial evaluation with the unknowns given (no input needed)', async () => {
    const r = await cli(['bench', ...FAST, '-p', '-u', 'input', '-d', policy, 'data.b.allow']);
    expect(r.stderr).toBe('');
    expect(samples(r.stdout)).toBeGreaterThan(0);
    // a full evaluation of the same query without input is undefined, which --fail refuses
    expect((await cli(['bench', ...FAST, '-d', policy, 'data.b.allow'])).code).toBe(1);
  });
});

describe('bench: flags regolith refuses or accepts', () => {
  it('-t rego and --optimize-store-for-read-speed are accepted', async () => {
    expect(samples((await cli(['bench', ...FAST, '-t', 'rego', '--optimize-store-for-read-speed', '-d', policy, '-i', input, 'data.b.allow'])).stdout)).toBeGreaterThan(0);
  });

  const cases: [string[], string][] = [
    [['--e2e'], 'HTTP load tool'],
    [['-c', 'conf.yaml'], 'drop it'],
    [['--shutdown-grace-period', '5'], 'drop it'],
    [['--shutdown-wait-period', '5'], 'drop it'],
    [['-t', 'wasm'], 'use -t rego'],
  ];
  for (const [args, alternative] of cases) {
    it(args.join(' '), async () => {
      const r = await cli(['bench', ...args, '-d', policy, 'data.b.allow']);
      expect(r.code).toBe(1);
      expect(r.stderr).not.toContain('unknown option');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(alternative);
    });
  }
});
