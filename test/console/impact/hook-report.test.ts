// What the console's impact analysis answers besides the replay report: every changed
// decision, which decisions were replayed (source, count, time range), and the candidate
// against the live policy under the names the console shows.

import { describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { impactHook } from '../../../src/console/impact/hook.js';

const LIVE = 'package authz\n\ndefault allow := false\n\nallow if input.user == "alice"\n';
const CANDIDATE = 'package authz\n\ndefault allow := false\n\nallow if input.user == "carol"\n';

function event(id: string, user: string, result: boolean, timestamp: string) {
  return JSON.stringify({ decision_id: id, path: 'authz/allow', input: { user }, result, timestamp });
}

describe('impactHook report', () => {
  it('lists every changed decision, the replayed range and the policy diff', async () => {
    const engine = new RegolithEngine();
    await engine.putPolicy('policies/authz.rego', LIVE);
    const recent = [
      event('d2', 'alice', true, '2026-11-26T10:00:02.250Z'),
      event('d1', 'alice', true, '2026-11-26T10:00:01.000Z'),
      event('d3', 'carol', false, '2026-11-26T10:00:03.500Z'),
      event('d4', 'bob', false, '2026-11-26T10:00:04.000Z'),
      event('d5', 'alice', true, '2026-11-26T10:00:05.000Z'),
    ];
    const hook = impactHook({ engine, recent: (n) => recent.slice(-n) });
    const r = await hook({ candidate: { modules: { 'authz.rego': CANDIDATE } } });
    expect(r.status).toBe(200);
    const body = r.body as Record<string, any>;
    expect(body.changed).toBe(4);
    // all of them, past the three examples per kind
    expect(body.changes.map((c: { decision_id: string }) => c.decision_id)).toEqual(['d2', 'd1', 'd3', 'd5']);
    expect(body.changes[0]).toEqual({ decision_id: 'd2', path: 'authz/allow', kind: 'allow->deny', timestamp: '2026-11-26T10:00:02.250Z', input: { user: 'alice' }, before: true, after: false });
    expect(body.changes_truncated).toBeUndefined();
    expect(body.decisions).toEqual({ source: 'recent', count: 5, from: '2026-11-26T10:00:01.000Z', to: '2026-11-26T10:00:05.000Z' });
    // the live module is shown as "authz.rego" (relative to its folder), as the candidate names it
    expect(body.policy_diff).toHaveLength(1);
    expect(body.policy_diff[0].file).toBe('authz.rego');
    expect(body.policy_diff[0].status).toBe('changed');
    expect(body.policy_diff[0].lines.filter((l: { op: string }) => l.op !== ' ')).toEqual([
      { op: '-', text: 'allow if input.user == "alice"' },
      { op: '+', text: 'allow if input.user == "carol"' },
    ]);
  });

  it('says the decisions came from an upload, and counts only those read under a limit', async () => {
    const engine = new RegolithEngine();
    await engine.putPolicy('authz.rego', LIVE);
    const ndjson = [event('a', 'alice', true, '2026-11-26T09:00:00Z'), event('b', 'alice', true, '2026-11-26T11:00:00Z')].join('\n');
    const r = await impactHook({ engine })({ candidate: { modules: { 'authz.rego': CANDIDATE } }, decisions_ndjson: ndjson, limit: 1 });
    const body = r.body as Record<string, any>;
    expect(body.decisions).toEqual({ source: 'upload', count: 1, from: '2026-11-26T09:00:00Z', to: '2026-11-26T09:00:00Z' });
    expect(body.changes).toHaveLength(1);
  });

  it('tells the changes the candidate did not make: the live policy answers them the same today', async () => {
    const engine = new RegolithEngine();
    const HELLO = 'package tools\n\nhello := sprintf("%s %s", [data.greeting, input.user])\n';
    await engine.putPolicy('tools.rego', HELLO);
    await engine.putPolicy('authz.rego', LIVE);
    // logged when data.greeting was "hi"; it is "howdy" now
    await engine.store.transact((txn) => txn.write('add', ['greeting'], 'howdy'));
    const recent = [
      JSON.stringify({ decision_id: 'h1', path: 'tools/hello', input: { user: 'fay' }, result: 'hi fay', timestamp: '2026-11-26T10:00:01Z' }),
      event('a1', 'alice', true, '2026-11-26T10:00:02Z'),
    ];
    const r = await impactHook({ engine, recent: (n) => recent.slice(-n) })({ candidate: { modules: { 'tools.rego': HELLO, 'authz.rego': CANDIDATE } } });
    const body = r.body as Record<string, any>;
    expect(body.changed).toBe(2);
    expect(body.changed_since).toBe(1);
    const byId = Object.fromEntries(body.changes.map((c: { decision_id: string }) => [c.decision_id, c]));
    expect(byId.h1.live_agrees).toBe(true);
    expect(byId.a1.live_agrees).toBeUndefined();
    const ex = Object.fromEntries(body.examples.map((e: { decision_id: string }) => [e.decision_id, e]));
    expect(ex.h1.live_agrees).toBe(true);
    expect(ex.a1.live_agrees).toBeUndefined();
  });
});
