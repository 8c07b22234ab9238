// The decision log plugin's feed for the web console (recent / subscribe): exactly the
// events the log writes — masked as logged, dropped ones never — oldest first, bounded.

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { DecisionLogPlugin } from '../../../src/plugins/logs/plugin.js';

const MASK = `package system.log

mask contains "/input/password"

mask contains {"op": "upsert", "path": "/input/ssn", "value": "***"} if input.input.ssn

drop if input.input.user == "noisy"
`;

async function plugin(mask = true) {
  const engine = new RegolithEngine();
  if (mask) await engine.putPolicy('log.rego', MASK);
  const config = validateConfig({ decision_logs: { console: true } });
  return new DecisionLogPlugin({ config, engine, labels: { id: 'feed' }, console: pino({ level: 'silent' }) });
}

describe('decision log console feed', () => {
  it('feeds masked events, never dropped ones, to recent() and subscribers', async () => {
    const p = await plugin();
    const seen: string[] = [];
    p.subscribe((e) => seen.push(e));
    await p.logDecision({ decision_id: 'd1', path: 'data.a', input: { user: 'alice', password: 'hunter2', ssn: '123-45' }, result: true });
    await p.logDecision({ decision_id: 'd2', path: 'data.a', input: { user: 'noisy', password: 'x' }, result: false });
    await p.logDecision({ decision_id: 'd3', path: 'data.a', input: { user: 'bob' }, result: false });
    expect(seen).toEqual(p.recent(10));
    const events = seen.map((e) => JSON.parse(e));
    expect(events.map((e) => e.decision_id)).toEqual(['d1', 'd3']);
    expect(events[0]).toMatchObject({ input: { user: 'alice', ssn: '***' }, erased: ['/input/password'], masked: ['/input/ssn'], path: 'a' });
    expect(seen.join('\n')).not.toContain('hunter2');
    expect(seen.join('\n')).not.toContain('123-45');
    expect(seen.join('\n')).not.toContain('noisy');
    expect(p.counts.dropped_by_policy).toBe(1);
  });

  it('logs nothing to the feed when the mask policy fails', async () => {
    const config = validateConfig({ decision_logs: { console: true } });
    const p = new DecisionLogPlugin({ config, engine: { hasRulesAt: () => true, evaluate: () => Promise.reject(new Error('broken')) }, labels: {}, console: pino({ level: 'silent' }) });
    const seen: string[] = [];
    p.subscribe((e) => seen.push(e));
    await p.logDecision({ decision_id: 'd1', input: { password: 'x' } });
    expect(seen).toEqual([]);
    expect(p.recent(10)).toEqual([]);
  });

  it('keeps the last 1000, oldest first; limit counts from the newest', async () => {
    const p = await plugin(false);
    for (let i = 0; i < 1005; i++) await p.logDecision({ decision_id: `d${i}` });
    const all = p.recent(5000).map((e) => JSON.parse(e).decision_id);
    expect(all).toHaveLength(1000);
    expect(all[0]).toBe('d5');
    expect(all[999]).toBe('d1004');
    expect(p.recent(2).map((e) => JSON.parse(e).decision_id)).toEqual(['d1003', 'd1004']);
    expect(p.recent(0)).toEqual([]);
  });

  it('stops calling a listener once unsubscribed, and survives one that throws', async () => {
    const p = await plugin(false);
    const seen: string[] = [];
    p.subscribe(() => {
      throw new Error('bad listener');
    });
    const off = p.subscribe((e) => seen.push(e));
    await p.logDecision({ decision_id: 'a' });
    off();
    await p.logDecision({ decision_id: 'b' });
    expect(seen.map((e) => JSON.parse(e).decision_id)).toEqual(['a']);
    expect(p.recent(10)).toHaveLength(2);
    expect(p.counts.logged).toBe(2);
  });
});
