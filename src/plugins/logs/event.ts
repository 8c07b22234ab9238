// One decision log event in OPA's shape, built from what the server reports about a
// decision plus the sidecar's labels and the active bundle revisions.

import { newPlainObject, toJSONText, type PlainObject } from '../../value/index.js';
import type { DecisionEvent } from '../../engine/index.js';

/** "data.a.b[\"c d\"]" -> "a/b/c d" (OPA logs the path without "data", slash-separated). */
export function eventPath(p: string): string {
  if (!p.startsWith('data')) return p.replace(/^\/+/, '');
  const segs: string[] = [];
  const re = /\.([A-Za-z_][A-Za-z0-9_]*)|\[("(?:[^"\\]|\\.)*"|-?\d+)\]/gy;
  re.lastIndex = 4;
  let m: RegExpExecArray | null;
  while ((m = re.exec(p))) segs.push(m[1] ?? (m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!));
  return segs.join('/');
}

export interface EventContext {
  labels: Record<string, string>;
  revisions: Record<string, string>;
}

export function buildEvent(d: DecisionEvent, ctx: EventContext): PlainObject {
  const e = newPlainObject();
  e['labels'] = { ...ctx.labels };
  e['decision_id'] = d.decision_id;
  const bundles = Object.entries(ctx.revisions);
  if (bundles.length) {
    const b = newPlainObject();
    for (const [name, revision] of bundles) b[name] = { revision };
    e['bundles'] = b;
  }
  if (d.path !== undefined) e['path'] = eventPath(d.path);
  if (d.query !== undefined) e['query'] = d.query;
  if (d.input !== undefined) e['input'] = d.input;
  if (d.result !== undefined) e['result'] = d.result;
  if (d.error) e['error'] = { code: d.error.code, message: d.error.message };
  e['requested_by'] = d.requested_by ?? '';
  e['timestamp'] = d.timestamp ?? new Date().toISOString();
  if (d.metrics && Object.keys(d.metrics).length) e['metrics'] = { ...d.metrics };
  if (d.nd_builtin_cache !== undefined) e['nd_builtin_cache'] = d.nd_builtin_cache;
  if (d.req_id !== undefined) e['req_id'] = d.req_id;
  return e;
}

export function encodeEvent(e: PlainObject): string {
  return toJSONText(e);
}
