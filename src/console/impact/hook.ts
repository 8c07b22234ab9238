// The console's impact analysis as the server calls it (ConsoleOptions.impact): the
// candidate from the request — a bundle (base64 or an http(s) URL), or edited modules over
// the server's current data — replayed against the decisions the request carries (NDJSON) or
// the recent ones of the decision log, with the server's current policies as the baseline
// for "rules involved". Besides the report: every changed decision (`changes`, at most
// MAX_CHANGES), which decisions were replayed (`decisions`: where from, how many, the time
// range), the candidate against the live policy file by file (`policy_diff`), and which
// changes are not the candidate's (`live_agrees`, `changed_since`): the result logged is
// compared with the candidate's over today's data, so a decision whose data or policies
// changed since it was made differs even where the candidate changed nothing; the live
// policy, asked the same today, tells those apart.

import type { RegolithEngine } from '../../engine/store-engine.js';
import { CANDIDATE_BUNDLE } from './candidate.js';
import { canonical, loadCandidate, parseNDJSON, replay, type ImpactChange, type ImpactExample } from './index.js';
import { policyDiff } from './policy-diff.js';
import { moduleNames } from '../playground/module-names.js';
import { isPlainObject, toJSONText, type Value } from '../../value/index.js';

/** Changed decisions listed in full at most (the counts go on). */
export const MAX_CHANGES = 10_000;

/** The module texts of an engine by the names the console shows (bundle-relative). */
function shownModules(engine: RegolithEngine, bundleNames: string[]): Record<string, string> {
  const policies = engine.listPolicies();
  const names = moduleNames(policies.map((p) => p.id), bundleNames);
  const out: Record<string, string> = {};
  for (const p of policies) out[names.get(p.id)!] = p.raw;
  return out;
}

/** The earliest and latest timestamp among the events (RFC 3339 text, compared as instants). */
function timeRange(events: unknown[]): { from?: string; to?: string } {
  let from: [number, string] | undefined;
  let to: [number, string] | undefined;
  for (const e of events) {
    const ts = isObj(e) ? e['timestamp'] : undefined;
    const t = typeof ts === 'string' ? Date.parse(ts) : NaN;
    if (Number.isNaN(t)) continue;
    if (!from || t < from[0]) from = [t, ts as string];
    if (!to || t > to[0]) to = [t, ts as string];
  }
  return { ...(from ? { from: from[1] } : {}), ...(to ? { to: to[1] } : {}) };
}

export interface ImpactHookOptions {
  engine: RegolithEngine;
  /** Recent decision-log events (JSON text), when logging is on. */
  recent?: (limit: number) => string[];
  /** Largest bundle fetched from a URL or given inline (bytes). */
  maxBundleBytes?: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (message: string) => ({ status: 400, body: { code: 'invalid_parameter', message } });

async function fetchBundle(url: string, max: number): Promise<Buffer> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`bundle_url: invalid URL ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('bundle_url: only http(s) URLs');
  const r = await fetch(u, { signal: AbortSignal.timeout(30_000) });
  if (!r.ok) throw new Error(`bundle_url: ${url} answered ${r.status}`);
  const b = Buffer.from(await r.arrayBuffer());
  if (b.length > max) throw new Error(`bundle_url: the bundle is larger than ${max} bytes`);
  return b;
}

/**
 * Marks the changes the live engine answers as the candidate does (one evaluation per
 * changed decision, none for the others); answers how many distinct decisions it marked.
 */
async function markLiveAgrees(engine: RegolithEngine, changes: (ImpactChange | ImpactExample)[]): Promise<number> {
  const agreed = new Set<string>();
  for (const c of changes) {
    let live: Value | undefined;
    try {
      live = (await engine.evaluate(c.path.split('/').filter((s) => s !== ''), { input: c.input as Value | undefined })).result;
    } catch {
      continue;
    }
    if (canonical(live) === canonical(c.after as Value | undefined)) {
      c.live_agrees = true;
      agreed.add(`${c.decision_id}\u0000${c.path}`);
    }
  }
  return agreed.size;
}

export function impactHook(o: ImpactHookOptions): (request: unknown) => Promise<{ status: number; body: unknown }> {
  const max = o.maxBundleBytes ?? 64 * 1024 * 1024;
  return async (request) => {
    // the candidate may call the server's custom built-ins, as the live policy does
    const builtins = o.engine.builtins.definitions();
    const req = JSON.parse(toJSONText(request as Value)) as unknown;
    if (!isObj(req) || !isObj(req['candidate'])) return bad('the request needs a "candidate": {bundle_base64 | bundle_url | modules}');
    const c = req['candidate'];
    let candidate;
    let candidateModules: Record<string, string> | undefined;
    try {
      if (typeof c['bundle_base64'] === 'string') {
        const b = Buffer.from(c['bundle_base64'], 'base64');
        if (b.length > max) return bad(`the bundle is larger than ${max} bytes`);
        candidate = await loadCandidate({ bundle: b, builtins });
      } else if (typeof c['bundle_url'] === 'string') {
        candidate = await loadCandidate({ bundle: await fetchBundle(c['bundle_url'], max), builtins });
      } else if (isObj(c['modules'])) {
        const modules: Record<string, string> = {};
        for (const [k, v] of Object.entries(c['modules'])) {
          if (typeof v !== 'string') return bad(`candidate.modules["${k}"] must be the text of a module`);
          modules[k] = v;
        }
        candidateModules = modules;
        // edited modules decide over the server's data
        candidate = await loadCandidate({ modules, data: JSON.parse(toJSONText(o.engine.store.snapshot().data as Value)), builtins });
      } else return bad('candidate: give bundle_base64, bundle_url or modules');
    } catch (e) {
      return bad(`the candidate cannot be loaded: ${(e as Error).message}`);
    }
    let events: unknown[];
    let source: 'upload' | 'recent';
    if (typeof req['decisions_ndjson'] === 'string') {
      events = parseNDJSON(req['decisions_ndjson']);
      source = 'upload';
    } else if (o.recent) {
      events = o.recent(1000).map((t) => JSON.parse(t) as unknown);
      source = 'recent';
    } else return bad('decision logging is off: upload decisions as NDJSON (decisions_ndjson), or turn logging on (decision_logs: {console: true})');
    const limit = typeof req['limit'] === 'number' && req['limit'] > 0 ? req['limit'] : undefined;
    const baseline: Record<string, string> = {};
    for (const p of o.engine.store.snapshot().listPolicies()) baseline[p.id] = p.raw;
    const report = await replay(events, candidate, { limit, baseline, examplesPerKind: 3, keepChanges: MAX_CHANGES });
    report.changed_since = await markLiveAgrees(o.engine, [...(report.changes ?? []), ...report.examples]);
    const read = limit === undefined ? events : events.slice(0, limit);
    const root = o.engine.store.read([]);
    const sys = isPlainObject(root) && isPlainObject(root['system']) ? root['system']['bundles'] : undefined;
    const live = shownModules(o.engine, isPlainObject(sys) ? Object.keys(sys) : []);
    const diff = policyDiff(live, candidateModules ?? shownModules(candidate.engine, [CANDIDATE_BUNDLE]));
    return { status: 200, body: { ...report, decisions: { source, count: read.length, ...timeRange(read) }, policy_diff: diff } };
  };
}
