// regolith replay: the built binary, as CI runs it, over bundles made by `regolith build`
// and decision-log events recorded from real evaluations (in the logged shape).

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Value } from '../../../src/engine/index.js';
import { loadCandidate } from '../../../src/console/impact/index.js';
import { buildEvent, encodeEvent } from '../../../src/plugins/logs/event.js';
import { ensureBuilt, regolith } from '../helpers.js';

let dir: string;
let events: string;
let eventsText: string;

const OLD = `package authz
default allow := false
allow if {
  input.amount <= 100
  is_member
}
is_member if input.user in {"alice", "bob"}
limit := 100
`;
const NEW = OLD.replace('input.amount <= 100', 'input.amount <= 50').replace('limit := 100', 'limit := 50');

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'regolith-replay-'));
  for (const [name, text] of [
    ['old', OLD],
    ['new', NEW],
  ] as const) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'authz.rego'), text);
    const r = regolith(['build', '-o', join(dir, `${name}.tar.gz`), join(dir, name)]);
    expect(r.code, r.stderr).toBe(0);
  }
  // same policy, nothing changes for these decisions
  mkdirSync(join(dir, 'same'));
  writeFileSync(join(dir, 'same', 'authz.rego'), OLD.replace('limit := 100', 'limit := 100 # unchanged'));
  const old = await loadCandidate({ modules: { 'authz.rego': OLD } });
  const lines: string[] = [];
  let n = 0;
  for (const amount of [10, 60, 80, 120]) {
    for (const user of ['alice', 'eve']) {
      const input = { amount, user } as unknown as Value;
      for (const path of ['authz/allow', 'authz/limit']) {
        const result = await old.evaluate(path.split('/'), input);
        lines.push(encodeEvent(buildEvent({ decision_id: `d${n++}`, path: 'data.' + path.replace('/', '.'), input, result }, { labels: { id: 'x' }, revisions: {} })));
      }
    }
  }
  lines.push('', 'this is not json', '{"decision_id":"q","query":"data.authz.allow","result":[]}');
  eventsText = lines.join('\n') + '\n';
  events = join(dir, 'events.ndjson');
  writeFileSync(events, eventsText);
}, 120_000);

describe('regolith replay', () => {
  it('prints the impact table and examples; exit 0 without a threshold', () => {
    const r = regolith(['replay', '--bundle', join(dir, 'new.tar.gz'), '--decisions', events, '--baseline', join(dir, 'old.tar.gz')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('18 events: 16 replayed, 10 changed; skipped: 1 malformed, 1 no path');
    expect(r.stdout).toMatch(/\| authz\/limit +\| 8 +\| 8 +\| 0 +\| 0 +\| 8 +\|/);
    expect(r.stdout).toMatch(/\| authz\/allow +\| 8 +\| 2 +\| 2 +\| 0 +\| 0 +\|/);
    expect(r.stdout).toContain('Examples: allow->deny');
    expect(r.stdout).toContain('~ (result): true -> false');
    expect(r.stdout).toContain('rules: authz.allow');
    expect(r.stdout).toContain('~ (result): 100 -> 50');
    expect(r.stdout).toContain('rules: authz.limit');
    expect(r.stderr).toBe('');
  });

  it('exits 1 when a change crosses --fail-on-change or --max-changes', () => {
    const base = ['replay', '--bundle', join(dir, 'new.tar.gz'), '--decisions', events];
    const a = regolith([...base, '--fail-on-change', 'allow->deny']);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('threshold crossed: decisions changed: 2 allow->deny');
    expect(regolith([...base, '--fail-on-change', 'deny->allow']).code).toBe(0);
    expect(regolith([...base, '--fail-on-change', 'deny->allow,value']).code).toBe(1);
    expect(regolith([...base, '--fail-on-change', 'any']).code).toBe(1);
    expect(regolith([...base, '--max-changes', '10']).code).toBe(0);
    const m = regolith([...base, '--max-changes', '9']);
    expect(m.code).toBe(1);
    expect(m.stderr).toContain('10 decisions changed (more than --max-changes 9)');
  });

  it('answers JSON in the report shape', () => {
    const r = regolith(['replay', '--bundle', join(dir, 'new.tar.gz'), '--decisions', events, '--format', 'json', '--examples', '1']);
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(rep).toMatchObject({ total: 18, replayed: 16, skipped: { malformed: 1, no_path: 1 }, changed: 10 });
    expect(rep['by_path']).toEqual([
      { path: 'authz/limit', total: 8, changed: 8, allow_to_deny: 0, deny_to_allow: 0, value_changed: 8 },
      { path: 'authz/allow', total: 8, changed: 2, allow_to_deny: 2, deny_to_allow: 0, value_changed: 0 },
    ]);
    expect(rep['examples']).toEqual([
      { decision_id: 'd1', path: 'authz/limit', kind: 'value', input: { amount: 10, user: 'alice' }, before: 100, after: 50, diff: [{ op: 'replace', path: '', old: 100, new: 50 }], rules: ['authz.limit'] },
      { decision_id: 'd4', path: 'authz/allow', kind: 'allow->deny', input: { amount: 60, user: 'alice' }, before: true, after: false, diff: [{ op: 'replace', path: '', old: true, new: false }], rules: ['authz.allow'] },
    ]);
  });

  it('reads the decisions from stdin with -, and takes a --policy directory', () => {
    const r = regolith(['replay', '--policy', join(dir, 'same'), '--decisions', '-', '--format', 'json', '--fail-on-change', 'any'], { input: eventsText });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ total: 18, replayed: 16, changed: 0, examples: [] });
    const s = regolith(['replay', '--bundle', join(dir, 'new.tar.gz'), '--decisions', '-', '--fail-on-change', 'allow->deny'], { input: eventsText });
    expect(s.code).toBe(1);
  });

  it('takes --data for a --policy candidate', () => {
    mkdirSync(join(dir, 'withdata'));
    writeFileSync(join(dir, 'withdata', 'authz.rego'), OLD.replace('input.amount <= 100', 'input.amount <= data.limits.max').replace('limit := 100', 'limit := data.limits.max'));
    writeFileSync(join(dir, 'limits.json'), JSON.stringify({ limits: { max: 100 } }));
    const same = regolith(['replay', '--policy', join(dir, 'withdata'), '-d', join(dir, 'limits.json'), '--decisions', events, '--format', 'json']);
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ replayed: 16, changed: 0 });
    writeFileSync(join(dir, 'limits.json'), JSON.stringify({ limits: { max: 50 } }));
    const moved = regolith(['replay', '--policy', join(dir, 'withdata'), '-d', join(dir, 'limits.json'), '--decisions', events, '--format', 'json', '--baseline', join(dir, 'old.tar.gz')]);
    const rep = JSON.parse(moved.stdout) as { changed: number; examples: { kind: string; rules: string[] }[] };
    expect(rep.changed).toBe(10);
    // the rules' text differs from the baseline (they read data now)
    expect(rep.examples.find((x) => x.kind === 'allow->deny')?.rules).toEqual(['authz.allow']);
    const both = regolith(['replay', '--bundle', join(dir, 'new.tar.gz'), '-d', join(dir, 'limits.json'), '--decisions', events]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--data adds data to a --policy candidate');
  });

  // One test per process started, each with its own time limit: eleven starts in one test
  // passed its 30 s under stress-ng at load ~20.
  const badCases: [string, () => string[], RegExp][] = [
    ['a missing bundle', () => ['--bundle', join(dir, 'missing.tar.gz'), '--decisions', events], /candidate .*missing\.tar\.gz: .*no such file/],
    ['a bundle that is not one', () => ['--bundle', events, '--decisions', events], /candidate .*events\.ndjson: bundle read failed/],
    ['missing decisions', () => ['--bundle', join(dir, 'new.tar.gz'), '--decisions', join(dir, 'nope.ndjson')], /--decisions .*nope\.ndjson: no such file/],
    ['a missing baseline', () => ['--bundle', join(dir, 'new.tar.gz'), '--decisions', events, '--baseline', join(dir, 'nope.tar.gz')], /baseline .*nope\.tar\.gz/],
    ['a bad --fail-on-change', () => ['--bundle', join(dir, 'new.tar.gz'), '--decisions', events, '--fail-on-change', 'allow->maybe'], /invalid argument "allow->maybe" for "--fail-on-change"/],
    ['a bad --max-changes', () => ['--bundle', join(dir, 'new.tar.gz'), '--decisions', events, '--max-changes', 'lots'], /invalid argument "lots" for "--max-changes"/],
    ['a bad --format', () => ['--bundle', join(dir, 'new.tar.gz'), '--decisions', events, '--format', 'yaml'], /"--format" flag: must be one of \{pretty, json\}/],
    ['no candidate', () => ['--decisions', events], /name the candidate: --bundle <file> or --policy <dir>/],
    ['no decisions', () => ['--bundle', join(dir, 'new.tar.gz')], /name the decisions to replay/],
    ['two candidates', () => ['--bundle', join(dir, 'new.tar.gz'), '--policy', join(dir, 'same'), '--decisions', events], /not both/],
  ];
  it.each(badCases)('exits 2 with a clear message on %s', (_what, args, msg) => {
    const r = regolith(['replay', ...args()]);
    expect(r.code, `${args().join(' ')}: ${r.stderr}`).toBe(2);
    expect(r.stderr).toMatch(msg);
    expect(r.stdout).toBe('');
  });

  it('exits 2 naming the file of a candidate that does not compile', () => {
    mkdirSync(join(dir, 'broken'));
    writeFileSync(join(dir, 'broken', 'x.rego'), 'package x\nallow if {\n');
    const b = regolith(['replay', '--policy', join(dir, 'broken'), '--decisions', events]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/candidate .*broken.*x\.rego/);
  });

  it('draws no progress bar when stderr is not a terminal', () => {
    const r = regolith(['replay', '--bundle', join(dir, 'new.tar.gz'), '--decisions', events, '--format', 'json']);
    expect(r.stderr).toBe('');
  });

  it('--builtins: a candidate that calls custom built-ins (the linter fixture) compiles and replays', () => {
    mkdirSync(join(dir, 'custom'));
    writeFileSync(join(dir, 'custom', 'authz.rego'), 'package authz\n\nallow if custom.slow_upper(input.user) == "ALICE"\n');
    const fixture = join(import.meta.dirname, '../../runtime/fixtures/builtins/linter.js');
    const without = regolith(['replay', '--policy', join(dir, 'custom'), '--decisions', events]);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/custom\.slow_upper/);
    const r = regolith(['replay', '--policy', join(dir, 'custom'), '--decisions', events, '--builtins', fixture, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    // every recorded decision evaluated (none skipped as candidate_error)
    const report = JSON.parse(r.stdout) as { replayed: number; skipped: Record<string, number> };
    expect(report.replayed).toBe(16);
    expect(report.skipped['candidate_error']).toBeUndefined();
  });
});
