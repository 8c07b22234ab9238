// `regolith replay`: replays decision-log events (NDJSON) against a candidate policy (a
// bundle, or .rego files with --policy) and prints the impact: decisions changed by path
// and kind (allow->deny, deny->allow, value), examples with a diff of the result and the
// rules involved. Exit codes: 0 within the threshold (--fail-on-change, --max-changes),
// 1 threshold crossed, 2 an error. A progress bar is drawn on stderr when it is a terminal.

import { readFileSync, statSync } from 'node:fs';
import { readBundle, readBundleFromBytes, type Bundle } from '../../bundle/index.js';
import { loadCandidate, parseNDJSON, replay, type Candidate, type ChangeKind, type ImpactReport } from '../../console/impact/index.js';
import { CLIError, out } from '../io.js';
import { loadPaths } from '../../runtime/load-paths.js';
import { asciiTable } from '../result-table.js';
import { command, opt, type OptionsOf } from '../command.js';
import { builtins, data, format, v0Compatible } from '../flags.js';
import { loadBuiltinModules } from '../../runtime/custom-builtins.js';
import type { CustomBuiltin } from '../../engine/index.js';

const replayCommand = command({
  name: 'replay',
  description: 'Replay recorded decisions (decision-log NDJSON) against a candidate policy and report which decisions change',
  flags: [
    opt('-b, --bundle <file>', 'the candidate bundle: a .tar.gz, a bundle directory or an http(s) URL'),
    opt('--policy <dir>', 'the candidate as .rego (and data) files instead of a bundle'),
    opt('--decisions <file>', 'decision-log events, one JSON object per line; "-" reads stdin'),
    data('extra data files for a --policy candidate; repeatable'),
    opt('--baseline <bundle>', 'the policy the decisions were recorded under (bundle or directory of .rego files): rules involved are then the changed ones'),
    opt('--fail-on-change <kinds>', 'exit 1 when a decision changes in one of these ways: comma list of allow-to-deny, deny-to-allow, value, any (also spelled \'allow->deny\', quoted for the shell)', 'none'),
    opt('--max-changes <n>', 'exit 1 when more than n decisions change'),
    opt('--limit <n>', 'replay at most the first n events'),
    format(['pretty', 'json'], 'pretty', 'output format (pretty, json)'),
    opt('--examples <n>', 'examples shown per kind of change', '3'),
    v0Compatible('modules without a rego_version in their manifest are Rego v0'),
    builtins(),
  ],
  examples: [
    'regolith replay --bundle candidate.tar.gz --decisions events.ndjson',
    'regolith replay --bundle candidate.tar.gz --decisions events.ndjson --fail-on-change allow-to-deny',
    'regolith replay --policy policies/ --baseline current.tar.gz --decisions - --format json < events.ndjson',
    '',
    'Events of queries (no path), failed decisions and events a mask policy changed are skipped.',
    'Exit codes: 0 within the threshold, 1 threshold crossed, 2 an error (unreadable file, bad bundle, bad flag).',
  ],
});

type Flags = OptionsOf<typeof replayCommand>;

const KINDS: ChangeKind[] = ['allow->deny', 'deny->allow', 'value'];

// `allow->deny` unquoted makes the shell write a file named `deny`: each kind has a spelling
// without `>` too.
const SPELLINGS: Record<string, ChangeKind> = { 'allow-to-deny': 'allow->deny', 'deny-to-allow': 'deny->allow' };

/** The kinds --fail-on-change names; 'any' also fails on decisions the candidate could not evaluate. */
export function failKinds(s: string): { kinds: Set<ChangeKind>; errors: boolean } {
  const out = new Set<ChangeKind>();
  let errors = false;
  for (const raw of s.split(',')) {
    const k = SPELLINGS[raw.trim()] ?? raw.trim();
    if (k === '' || k === 'none') continue;
    if (k === 'any') {
      KINDS.forEach((x) => out.add(x));
      errors = true;
    }
    else if ((KINDS as string[]).includes(k)) out.add(k as ChangeKind);
    else throw new CLIError(`invalid argument "${k}" for "--fail-on-change" flag: must be a comma list of allow-to-deny (or 'allow->deny'), deny-to-allow (or 'deny->allow'), value, any`, 2);
  }
  return { kinds: out, errors };
}

function count(flag: string, s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  if (!/^\d+$/.test(s.trim())) throw new CLIError(`invalid argument "${s}" for "${flag}" flag: must be a non-negative integer`, 2);
  return Number(s);
}

async function bundleAt(where: string): Promise<Bundle> {
  if (/^https?:\/\//.test(where)) {
    let res: Response;
    try {
      res = await fetch(where);
    } catch (e) {
      throw new CLIError(`${where}: ${(e as Error).message}`, 2);
    }
    if (!res.ok) throw new CLIError(`${where}: HTTP ${res.status}`, 2);
    return readBundleFromBytes(new Uint8Array(await res.arrayBuffer()));
  }
  return readBundle(where);
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** A policy from .rego/data files (a directory or files): modules and data for loadCandidate. */
async function filesCandidate(paths: string[], regoVersion: 'v0' | 'v1', builtins: CustomBuiltin[]): Promise<Candidate> {
  const loaded = await loadPaths({ paths, regoVersion });
  const modules: Record<string, string> = {};
  for (const m of loaded.modules) modules[m.file] = m.text;
  if (!loaded.modules.length) throw new CLIError(`${paths[0]}: no .rego files`, 2);
  return loadCandidate({ modules, data: loaded.data, regoVersion, builtins });
}

/** The message of a parse/compile/activation error, with the diagnostics it does not already name. */
function messageOf(what: string, e: unknown): string {
  const head = `${what}: ${e instanceof Error ? e.message : String(e)}`;
  const errs = (e as { errors?: unknown }).errors;
  const more: string[] = [];
  for (const d of Array.isArray(errs) ? errs : []) {
    const x = typeof d === 'string' ? { message: d } : (d as { message?: string; location?: { file?: string; row?: number } });
    if (!x.message || head.includes(x.message)) continue;
    more.push(`  ${x.location ? `${x.location.file}:${x.location.row}: ` : ''}${x.message}`);
  }
  return [head, ...more].join('\n');
}

async function candidateOf(f: Flags, regoVersion: 'v0' | 'v1', builtins: CustomBuiltin[]): Promise<Candidate> {
  try {
    if (f.bundle) return await loadCandidate({ bundle: await bundleAt(f.bundle), regoVersion, builtins });
    return await filesCandidate([f.policy!, ...f.data], regoVersion, builtins);
  } catch (e) {
    if (e instanceof CLIError) throw e;
    throw new CLIError(messageOf(`candidate ${f.bundle ?? f.policy}`, e), 2);
  }
}

async function baselineOf(where: string, regoVersion: 'v0' | 'v1', builtins: CustomBuiltin[]): Promise<Candidate> {
  try {
    // a directory with a .manifest or data files is still read as .rego files plus data
    if (isDir(where)) return await filesCandidate([where], regoVersion, builtins);
    return await loadCandidate({ bundle: await bundleAt(where), regoVersion, builtins });
  } catch (e) {
    if (e instanceof CLIError) throw e;
    throw new CLIError(messageOf(`baseline ${where}`, e), 2);
  }
}

function decisionsOf(where: string): unknown[] | AsyncIterable<unknown> {
  if (where === '-') return parseNDJSON(process.stdin);
  let text: string;
  try {
    text = readFileSync(where, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CLIError(`--decisions ${where}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`, 2);
  }
  return parseNDJSON(text);
}

interface Progress {
  tick: (done: number, total?: number) => void;
  /** Draws the final state (a stream's count is only known at its end) and ends the line. */
  finish: () => void;
}

function progressBar(): Progress | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  let state: [number, number | undefined] = [0, undefined];
  let ended = false;
  const draw = (done: number, total: number | undefined) => {
    const width = 30;
    if (total === undefined) return void process.stderr.write(`\r${done} decisions replayed`);
    const filled = total ? Math.round((done / total) * width) : width;
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} decisions`);
  };
  return {
    tick: (done, total) => {
      state = [done, total];
      const now = Date.now();
      if (now - last < 100 && !(total !== undefined && done >= total)) return;
      last = now;
      draw(done, total);
    },
    finish: () => {
      if (ended) return;
      ended = true;
      draw(...state);
      process.stderr.write('\n');
    },
  };
}

function json(v: unknown): string {
  return v === undefined ? 'undefined' : JSON.stringify(v);
}

export function renderPretty(r: ImpactReport): string {
  const parts: string[] = [];
  const skipped = Object.entries(r.skipped)
    .map(([k, n]) => `${n} ${k.replace('_', ' ')}`)
    .join(', ');
  parts.push(`${r.total} events: ${r.replayed} replayed, ${r.changed} changed${skipped ? `; skipped: ${skipped}` : ''}`);
  if (r.by_path.length) {
    const rows = r.by_path.map((p) => [p.path, String(p.total), String(p.changed), String(p.allow_to_deny), String(p.deny_to_allow), String(p.value_changed)]);
    const t = r.by_path.reduce((a, p) => [a[0]! + p.total, a[1]! + p.changed, a[2]! + p.allow_to_deny, a[3]! + p.deny_to_allow, a[4]! + p.value_changed], [0, 0, 0, 0, 0]);
    if (r.by_path.length > 1) rows.push(['(all)', ...t.map(String)]);
    parts.push(asciiTable(['Path', 'Total', 'Changed', 'allow->deny', 'deny->allow', 'Value'], rows).trimEnd());
  }
  for (const kind of KINDS) {
    const xs = r.examples.filter((x) => x.kind === kind);
    if (!xs.length) continue;
    parts.push(`Examples: ${kind}`);
    for (const x of xs) {
      const lines = [`  decision ${x.decision_id || '(no id)'} at ${x.path}`, `    input:  ${json(x.input)}`, `    before: ${json(x.before)}`, `    after:  ${json(x.after)}`];
      for (const d of x.diff) {
        const at = d.path === '' ? '(result)' : d.path;
        if (d.op === 'add') lines.push(`    + ${at}: ${json(d.new)}`);
        else if (d.op === 'remove') lines.push(`    - ${at}: ${json(d.old)}`);
        else lines.push(`    ~ ${at}: ${json(d.old)} -> ${json(d.new)}`);
      }
      lines.push(`    rules: ${x.rules.length ? x.rules.join(', ') : '(none identified)'}`);
      parts.push(lines.join('\n'));
    }
  }
  return parts.join('\n\n');
}

/** Why the threshold was crossed, or undefined when within it. */
export function thresholdCrossed(r: ImpactReport, fail: { kinds: Set<ChangeKind>; errors: boolean }, maxChanges: number | undefined): string | undefined {
  const kinds = fail.kinds;
  const sum = (k: ChangeKind) => r.by_path.reduce((a, p) => a + (k === 'allow->deny' ? p.allow_to_deny : k === 'deny->allow' ? p.deny_to_allow : p.value_changed), 0);
  const hit = [...kinds].filter((k) => sum(k) > 0).map((k) => `${sum(k)} ${k}`);
  const errors = r.skipped.candidate_error ?? 0;
  if (fail.errors && errors) hit.push(`${errors} failed to evaluate`);
  if (hit.length) return `decisions changed: ${hit.join(', ')}`;
  if (maxChanges !== undefined && r.changed > maxChanges) return `${r.changed} decisions changed (more than --max-changes ${maxChanges})`;
  return undefined;
}

async function replayAction(f: Flags): Promise<void> {
  if (f.format !== 'pretty' && f.format !== 'json') throw new CLIError(`invalid argument "${f.format}" for "--format" flag: must be one of {pretty, json}`, 2);
  if (!f.bundle && !f.policy) throw new CLIError('name the candidate: --bundle <file> or --policy <dir>', 2);
  if (f.bundle && f.policy) throw new CLIError('give --bundle or --policy, not both', 2);
  if (f.bundle && f.data.length) throw new CLIError('--data adds data to a --policy candidate; a bundle carries its own', 2);
  if (!f.decisions) throw new CLIError('name the decisions to replay: --decisions <file.ndjson> (or - for stdin)', 2);
  const kinds = failKinds(f.failOnChange);
  const maxChanges = count('--max-changes', f.maxChanges);
  const limit = count('--limit', f.limit);
  const perKind = count('--examples', f.examples) ?? 3;
  const regoVersion = f.v0Compatible ? 'v0' : 'v1';

  const events = decisionsOf(f.decisions);
  const customBuiltins = await loadBuiltinModules(f.builtins);
  const candidate = await candidateOf(f, regoVersion, customBuiltins);
  const baseline = f.baseline ? await baselineOf(f.baseline, regoVersion, customBuiltins) : undefined;
  const bar = progressBar();
  let report: ImpactReport;
  try {
    report = await replay(events, candidate, { limit, examplesPerKind: perKind, onProgress: bar?.tick, baseline });
  } catch (e) {
    throw new CLIError(`replay: ${(e as Error).message}`, 2);
  } finally {
    bar?.finish();
  }
  out(f.format === 'json' ? JSON.stringify(report, null, 2) : renderPretty(report));
  const crossed = thresholdCrossed(report, kinds, maxChanges);
  if (crossed) {
    process.stderr.write(`replay: threshold crossed: ${crossed}\n`);
    process.exitCode = 1;
  }
}

export default replayCommand.action(replayAction);
