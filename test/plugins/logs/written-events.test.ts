// Events written elsewhere (a worker's, EventWriter.pieces) and logged with recordWritten:
// the plugin logs what record() logs for the same decision, with or without drop and mask
// policies, with revisions of its own and the decision's, an nd_builtin_cache too large to
// upload, and a rate limit.

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { DecisionLogPlugin } from '../../../src/plugins/logs/plugin.js';
import { EventWriter, type WrittenEvent } from '../../../src/plugins/logs/event-bytes.js';
import type { LoggedDecision } from '../../../src/plugins/logs/event.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { inputText, parseJSON, type Value } from '../../../src/value/index.js';
import { pickOf, plainValue, randomValue } from './random-values.js';
import { seededRandom } from '../../seeded-random.js';

/** The pieces a worker would send for `d`, in a buffer of their own with room around them. */
function written(d: LoggedDecision): WrittenEvent {
  const w = new EventWriter();
  const split = w.pieces(d);
  const buf = Buffer.concat([Buffer.from('junk'), w.buf.subarray(0, w.length), Buffer.from('more')]);
  return { buf, start: 4, split: 4 + split, end: 4 + w.length, ndCache: d.nd_builtin_cache !== undefined, revisions: d.revisions };
}

/** Hex digits that compress no better than half their length. */
const noise = (r: () => number, n: number): string => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');

function decisions(seed: number, n: number): LoggedDecision[] {
  const r = seededRandom(seed);
  const out: LoggedDecision[] = [];
  for (let i = 0; i < n; i++) {
    const user = pickOf(r, ['alice', 'bob', 'carol']);
    const d: LoggedDecision = { decision_id: `d${i}`, path: 'data.app.allow', timestamp: '2026-11-28T05:00:00.000Z', requested_by: '127.0.0.1:1' };
    const input = { user, secret: 's3cret', extra: plainValue(r, 3) as Value };
    if (r() < 0.5) {
      const body = Buffer.from(`{"input":${JSON.stringify(input)}}`);
      d.input = (parseJSON(body.toString()) as Record<string, Value>)['input']!;
      d.input_text = inputText(body);
      if (r() < 0.5) d.input_partial = true;
    } else d.input = input;
    d.result = user === 'alice';
    if (r() < 0.5) d.result_json = String(d.result);
    if (r() < 0.3) d.nd_builtin_cache = { 'rand.intn': { '["x",10]': 3 }, pad: pickOf(r, [0, 1, 2]) === 0 ? noise(r, 3000) : r() < 0.5 ? 'p'.repeat(3000) : randomValue(r, 2) };
    if (r() < 0.2) d.revisions = { 'adapter/people': `r${i}` };
    if (r() < 0.2) d.metrics = { timer_rego_query_eval_ns: i };
    out.push(d);
  }
  return out;
}

async function logBoth(config: Record<string, unknown>, policies: Record<string, string>, ds: LoggedDecision[]) {
  const cfg = validateConfig(config);
  const engine = new RegolithEngine();
  for (const [id, text] of Object.entries(policies)) await engine.putPolicy(id, text);
  const make = () =>
    new DecisionLogPlugin({
      config: cfg,
      engine,
      client: cfg.services['s'] ? new ServiceClient(cfg.services['s']) : undefined,
      labels: { id: 'i', version: '0.1.0' },
      revisions: () => ({ bundle: 'b1' }),
      console: pino({ level: 'silent' }),
    });
  const [direct, pieces] = [make(), make()];
  for (const d of ds) {
    await direct.record(d);
    await pieces.recordWritten(written(d));
  }
  return { direct, pieces };
}

describe('events a worker wrote, logged by the primary', () => {
  it('are logged as record() logs the same decisions: no policy, drop and mask policies', async () => {
    const ds = decisions(11, 300);
    const plain = await logBoth({ decision_logs: { console: true } }, {}, ds);
    expect(plain.pieces.recent(1000)).toEqual(plain.direct.recent(1000));
    expect(plain.pieces.counts).toEqual(plain.direct.counts);
    expect(plain.pieces.counts.logged).toBe(300);

    const policy = `package system.log
drop if input.input.user == "bob"
mask contains "/input/secret" if input.result == true
mask contains {"op": "upsert", "path": "/input/who", "value": input.labels.id} if input.bundles["adapter/people"]
`;
    const filtered = await logBoth({ decision_logs: { console: true } }, { 'log.rego': policy }, ds);
    const events = filtered.pieces.recent(1000);
    expect(events).toEqual(filtered.direct.recent(1000));
    expect(filtered.pieces.counts).toEqual(filtered.direct.counts);
    // the policies did act: bob's decisions dropped, alice's secrets erased, the adapter's upserted
    expect(filtered.pieces.counts.dropped_by_policy).toBe(ds.filter((d) => JSON.stringify(d.input).includes('"bob"')).length);
    const parsed = events.map((e) => JSON.parse(e));
    expect(parsed.some((e) => e.erased?.includes('/input/secret'))).toBe(true);
    expect(parsed.some((e) => e.input.who === 'i')).toBe(true);
  });

  it('drop an nd_builtin_cache too large to upload, as record() does, and keep the others', async () => {
    const ds = decisions(12, 200);
    const { direct, pieces } = await logBoth({ services: { s: { url: 'http://127.0.0.1:9' } }, decision_logs: { service: 's', reporting: { upload_size_limit_bytes: 1024 } } }, {}, ds);
    expect(pieces.recent(1000)).toEqual(direct.recent(1000));
    expect(pieces.counts).toEqual(direct.counts);
    expect(pieces.counts.nd_builtin_cache_dropped).toBeGreaterThan(0);
    // kept: small caches, and a large one that fits once compressed (its event as written)
    const kept = pieces.recent(1000).filter((e) => 'nd_builtin_cache' in JSON.parse(e));
    expect(kept.some((e) => e.length > 1024)).toBe(true);
    expect(kept.some((e) => e.length < 1024)).toBe(true);
  });

  it('are held to the rate limit', async () => {
    const { direct, pieces } = await logBoth({ decision_logs: { console: true, reporting: { max_decisions_per_second: 5 } } }, {}, decisions(13, 20));
    expect(pieces.counts.logged).toBeLessThan(20);
    expect(pieces.counts.logged).toBeGreaterThanOrEqual(5);
    expect(Math.abs(pieces.counts.logged - direct.counts.logged)).toBeLessThanOrEqual(1);
  });
});
