// Impact analysis: replay recorded decisions (decision-log events, as the decision log
// plugin writes them) against a candidate policy and report what would change — counts by
// path and by kind of change, and a few examples of each kind with a diff of the result
// and the rules involved. The console's "impact" view and `regolith replay` both use it.
//
// An event is replayed when it names a path (`path: "a/b"`) and carries a faithful record
// of the decision: events of ad-hoc queries (no path), failed decisions (`error`) and
// events whose input or result a mask policy changed (`erased` / `masked`) are skipped,
// and so are lines that are not JSON objects and events the candidate fails to evaluate
// (`candidate_error`: e.g. a conflict the new policy introduces; reported, not classified).
//
// Rules involved (computed for the examples only: it needs a traced evaluation):
// - with a baseline (the policy the events were recorded under, as a Candidate or its
//   modules), the rules the changed decision evaluated in the candidate whose text differs
//   from the baseline's (added rules included). Text is compared as the AST without
//   locations, so moved or reformatted rules are not "changed". When the change comes
//   from data rather than rules, the list is empty.
// - without a baseline, every rule of the candidate the decision evaluated in its path's
//   package (the package the path's rule is in, or the packages under a package path).

import type { Value } from '../../engine/index.js';
import { type Candidate, loadCandidate } from './candidate.js';
import { canonicalJSON, classify, type ChangeKind } from './classify.js';
import { diffJSON, type DiffOp } from './diff.js';
import { MalformedLine } from './ndjson.js';

export { loadCandidate, type Candidate, type CandidateSource } from './candidate.js';
export { classify, canonical, verdict, type ChangeKind } from './classify.js';
export { diffJSON, type DiffOp } from './diff.js';
export { parseNDJSON, MalformedLine } from './ndjson.js';

export type SkipReason = 'malformed' | 'no_path' | 'error' | 'masked' | 'candidate_error';

export interface PathImpact {
  path: string;
  /** Decisions replayed on this path. */
  total: number;
  changed: number;
  allow_to_deny: number;
  deny_to_allow: number;
  value_changed: number;
}

export interface ImpactExample {
  decision_id: string;
  path: string;
  kind: ChangeKind;
  input?: unknown;
  /** The recorded result (undefined: the decision was undefined). */
  before?: unknown;
  /** The candidate's result. */
  after?: unknown;
  diff: DiffOp[];
  rules: string[];
  /** The live policy answers as the candidate today: the change came from data or policies changed since the decision (set by the console's hook). */
  live_agrees?: true;
}

/** One changed decision, as `keepChanges` lists them all. */
export interface ImpactChange {
  decision_id: string;
  path: string;
  kind: ChangeKind;
  /** When the decision was made (the event's timestamp), when it says. */
  timestamp?: string;
  input?: unknown;
  before?: unknown;
  after?: unknown;
  /** As ImpactExample.live_agrees. */
  live_agrees?: true;
}

export interface ImpactReport {
  /** Events read (every line or item, replayed or skipped). */
  total: number;
  replayed: number;
  /** Skipped events by reason; total = replayed + the sum of these. */
  skipped: Partial<Record<SkipReason, number>>;
  /** Replayed decisions whose result differs. */
  changed: number;
  /** Per path, most changes first. */
  by_path: PathImpact[];
  /** Up to examplesPerKind per kind, in the order the events came. */
  examples: ImpactExample[];
  /** Every changed decision in the order the events came, up to `keepChanges` (only when asked). */
  changes?: ImpactChange[];
  /** More decisions changed than `keepChanges` kept. */
  changes_truncated?: boolean;
  /** Of the changes listed, those the live policy answers as the candidate does today (set by the console's hook). */
  changed_since?: number;
}

export interface ReplayOptions {
  /** Read at most this many events (the rest of the source is not read). */
  limit?: number;
  /** Examples kept per kind of change (default 3). */
  examplesPerKind?: number;
  /** Called after each event; total is known when the events are an array. */
  onProgress?: (done: number, total?: number) => void;
  /** The policy the events were recorded under (for "rules involved"): a Candidate or its modules. */
  baseline?: Candidate | Record<string, string>;
  /** List every changed decision in the report (`changes`), at most this many. */
  keepChanges?: number;
}

function isCandidate(v: unknown): v is Candidate {
  return typeof v === 'object' && v !== null && typeof (v as Candidate).evaluate === 'function' && typeof (v as Candidate).ruleSignatures === 'function';
}

interface Pending {
  example: ImpactExample;
  ref: string[];
  input: Value | undefined;
}

/** Why an event cannot be replayed faithfully, or its path segments and input. */
function admit(e: unknown): { skip: SkipReason } | { ref: string[]; path: string; id: string; timestamp: unknown; input: Value | undefined; result: Value | undefined } {
  if (e instanceof MalformedLine || typeof e !== 'object' || e === null || Array.isArray(e)) return { skip: 'malformed' };
  const ev = e as Record<string, Value | undefined>;
  if (ev['error'] !== undefined) return { skip: 'error' };
  if (ev['erased'] !== undefined || ev['masked'] !== undefined) return { skip: 'masked' };
  const path = ev['path'];
  if (typeof path !== 'string') return ev['query'] !== undefined || path === undefined ? { skip: 'no_path' } : { skip: 'malformed' };
  const ref = path.split('/').filter((s) => s !== '');
  const id = ev['decision_id'];
  return { ref, path: ref.join('/'), id: typeof id === 'string' ? id : '', timestamp: ev['timestamp'], input: ev['input'], result: ev['result'] };
}

function pathRules(rules: string[], ref: string[], packages: Map<string, string[]>): string[] {
  return rules.filter((r) => {
    const p = packages.get(r);
    if (!p) return false;
    const underPath = ref.length <= p.length && ref.every((s, i) => p[i] === s);
    const ofPath = p.length === ref.length - 1 && p.every((s, i) => ref[i] === s);
    return underPath || ofPath;
  });
}

/** Replays the events against the candidate; see the file comment for what is skipped. */
export async function replay(events: AsyncIterable<unknown> | unknown[], candidate: Candidate, opts: ReplayOptions = {}): Promise<ImpactReport> {
  const perKind = opts.examplesPerKind ?? 3;
  const total = Array.isArray(events) ? Math.min(events.length, opts.limit ?? Infinity) : undefined;
  const report: ImpactReport = { total: 0, replayed: 0, skipped: {}, changed: 0, by_path: [], examples: [], ...(opts.keepChanges !== undefined ? { changes: [] } : {}) };
  const byPath = new Map<string, PathImpact>();
  const kept: Record<ChangeKind, number> = { 'allow->deny': 0, 'deny->allow': 0, value: 0 };
  const pending: Pending[] = [];
  const skip = (r: SkipReason) => (report.skipped[r] = (report.skipped[r] ?? 0) + 1);

  for await (const e of events as AsyncIterable<unknown>) {
    if (opts.limit !== undefined && report.total >= opts.limit) break;
    report.total++;
    const a = admit(e);
    if ('skip' in a) skip(a.skip);
    else {
      let after: Value | undefined;
      let failed = false;
      try {
        after = await candidate.evaluate(a.ref, a.input);
      } catch {
        failed = true;
      }
      if (failed) skip('candidate_error');
      else {
        report.replayed++;
        let p = byPath.get(a.path);
        if (!p) byPath.set(a.path, (p = { path: a.path, total: 0, changed: 0, allow_to_deny: 0, deny_to_allow: 0, value_changed: 0 }));
        p.total++;
        const kind = classify(a.result, after);
        if (kind) {
          report.changed++;
          p.changed++;
          if (kind === 'allow->deny') p.allow_to_deny++;
          else if (kind === 'deny->allow') p.deny_to_allow++;
          else p.value_changed++;
          if (opts.keepChanges !== undefined) {
            const changes = (report.changes ??= []);
            if (changes.length < opts.keepChanges) {
              const c: ImpactChange = { decision_id: a.id, path: a.path, kind, input: a.input === undefined ? undefined : canonicalJSON(a.input), before: canonicalJSON(a.result), after: canonicalJSON(after) };
              if (typeof a.timestamp === 'string') c.timestamp = a.timestamp;
              changes.push(c);
            } else report.changes_truncated = true;
          }
          if (kept[kind] < perKind) {
            kept[kind]++;
            const before = canonicalJSON(a.result);
            const now = canonicalJSON(after);
            const example: ImpactExample = { decision_id: a.id, path: a.path, kind, input: a.input === undefined ? undefined : canonicalJSON(a.input), before, after: now, diff: diffJSON(before, now), rules: [] };
            pending.push({ example, ref: a.ref, input: a.input });
          }
        }
      }
    }
    opts.onProgress?.(report.total, total);
  }

  const baseline = opts.baseline === undefined ? undefined : isCandidate(opts.baseline) ? opts.baseline : await loadCandidate({ modules: opts.baseline, builtins: candidate.engine.builtins.definitions() });
  const mine = candidate.ruleSignatures();
  const theirs = baseline?.ruleSignatures();
  for (const { example, ref, input } of pending) {
    let rules: string[];
    try {
      rules = await candidate.evaluatedRules(ref, input);
    } catch {
      rules = [];
    }
    example.rules = theirs ? rules.filter((r) => mine.get(r) !== theirs.get(r)) : pathRules(rules, ref, candidate.rulePackages());
    report.examples.push(example);
  }
  report.by_path = [...byPath.values()].sort((x, y) => y.changed - x.changed || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  return report;
}
