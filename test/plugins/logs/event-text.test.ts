// The decision-log event written straight from the decision (encodeDecision, the path every
// decision takes when no mask or drop policy exists) is the same text as the event object
// the mask/drop path builds and serialises (buildEvent + encodeEvent), and the work per
// logged decision is counted, not timed: the input is read once (serialised once, never
// copied), a result the server already serialised for its response is not read again,
// whoever reads the event afterwards (feed, console, upload buffer).

import { describe, expect, it } from 'vitest';
import { inputText, newPlainObject, parseJSON, toJSONText, type Value } from '../../../src/value/index.js';
import { buildEvent, encodeDecision, encodeEvent, EventText, jsonText, type LoggedDecision } from '../../../src/plugins/logs/event.js';
import { EventWriter } from '../../../src/plugins/logs/event-bytes.js';
import { DecisionLogPlugin } from '../../../src/plugins/logs/plugin.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { seededRandom } from '../../seeded-random.js';
import { pickOf, plainValue, randomValue } from './random-values.js';

describe('decision-log event text', () => {
  it('jsonText writes what toJSONText writes, over random values', () => {
    const r = seededRandom(28);
    for (let i = 0; i < 3000; i++) {
      const v = randomValue(r, 4);
      expect(jsonText(v)).toBe(toJSONText(v));
    }
    const parsed = parseJSON('{"z":1,"a":{"y":[1,2.50,{"c":"d","b":null}],"x":"\\u00e9"},"n":123456789012345678901234567890}');
    expect(jsonText(parsed)).toBe(toJSONText(parsed));
  });

  it('encodeDecision and EventWriter write encodeEvent(buildEvent(...)) for every shape of decision', () => {
    const r = seededRandom(5);
    const text = new EventText();
    const writer = new EventWriter();
    const revisionSets: Record<string, string>[] = [{}, { only: 'r1' }, { zeta: 'r2', alpha: 'r"3', mid: '' }];
    const labelSets: Record<string, string>[] = [{ id: 'inst', version: '0.1.0', 'z"label': 'é' }, { id: 'other', version: '0.1.0' }, {}];
    for (let i = 0; i < 1500; i++) {
      const d: LoggedDecision = { decision_id: `id-${i}`, timestamp: '2026-11-26T06:00:00.000Z' };
      if (r() < 0.8) d.path = pickOf(r, ['data.rbac.allow', 'data.a["b c"][0].d', 'data.x["q\\"é"]', 'data.rbac.deny']);
      if (r() < 0.2) d.query = 'x = data.q; y := "s"';
      if (r() < 0.8) d.input = randomValue(r, 4);
      if (r() < 0.7) d.result = randomValue(r, 3);
      if (r() < 0.2) d.error = { code: 'internal_error', message: 'bad "thing"\n' };
      if (r() < 0.4) d.requested_by = '127.0.0.1:5000';
      if (r() < 0.3) d.metrics = r() < 0.3 ? {} : { timer_rego_query_eval_ns: 1200, counter_x: 3 };
      if (r() < 0.2) d.nd_builtin_cache = randomValue(r, 2);
      if (r() < 0.2) d.req_id = Math.floor(r() * 1000);
      if (r() < 0.3) [d.trace_id, d.span_id] = ['4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7'];
      // labels and revisions change now and then, as they do with discovery and bundle activations
      const ctx = { labels: labelSets[Math.floor(i / 7) % 3]!, revisions: revisionSets[i % 3]! };
      const want = encodeEvent(buildEvent(d, ctx));
      expect(encodeDecision(d, ctx, text)).toBe(want);
      // the same bytes, written with no string
      expect(writer.decision(d, ctx, text)).toBe(Buffer.byteLength(want));
      expect(writer.buf.subarray(0, writer.length).equals(Buffer.from(want))).toBe(true);
      if (d.result !== undefined) {
        expect(encodeDecision({ ...d, result_json: toJSONText(d.result) }, ctx, text)).toBe(want);
        writer.decision({ ...d, result_json: toJSONText(d.result) }, ctx, text);
        expect(writer.toString()).toBe(want);
      }
    }
    // an event larger than the writer's first buffer
    const big: LoggedDecision = { decision_id: 'big', timestamp: '2026-11-26T06:00:00.000Z', input: { s: 'é'.repeat(40_000), a: Array.from({ length: 3000 }, (_, i) => ({ i })) } };
    const ctx = { labels: {}, revisions: {} };
    writer.decision(big, ctx, text);
    expect(writer.toString()).toBe(encodeDecision(big, ctx, text));
    // No timestamp given: one is stamped, as buildEvent does.
    const ev = JSON.parse(encodeDecision({ decision_id: 'x' }, { labels: {}, revisions: {} }, text)) as Record<string, unknown>;
    expect(Object.keys(ev)).toEqual(['decision_id', 'labels', 'requested_by', 'timestamp']);
    expect(Date.parse(ev['timestamp'] as string)).toBeGreaterThan(0);
  });

  it('copies the input text from a request body that is {"input": ...} alone, in both writers', () => {
    const r = seededRandom(1127);
    const writer = new EventWriter();
    const text = new EventText();
    const ctx = { labels: { id: 'i' }, revisions: { b: 'r1' } };
    let copied = 0;
    for (let i = 0; i < 1500; i++) {
      const json = JSON.stringify(plainValue(r, 4));
      const body = Buffer.from(r() < 0.8 ? `{"input":${json}}` : `{"input":${json},"input":${json}}`);
      const input = (parseJSON(body.toString()) as Record<string, Value>)['input']!;
      const d: LoggedDecision = { decision_id: `id-${i}`, input, input_text: inputText(body), result: true, timestamp: '2026-11-26T06:00:00.000Z' };
      const copy = inputText(body)?.toString('utf8');
      // the body's text as it is, or (a key twice, an escape) the value written as before
      const want = copy === undefined ? encodeEvent(buildEvent(d, ctx)) : encodeEvent(buildEvent(d, ctx)).replace(jsonText(input), () => json);
      if (copy !== undefined) {
        copied++;
        expect(copy).toBe(json);
      }
      expect(encodeDecision(d, ctx, text)).toBe(want);
      writer.decision(d, ctx, text);
      expect(writer.toString()).toBe(want);
    }
    expect(copied).toBeGreaterThan(500);
  });

  it('writes objects of a shape seen before as it writes new ones (same keys, other orders, other values)', () => {
    const r = seededRandom(91);
    const writer = new EventWriter();
    const text = new EventText();
    const ctx = { labels: { id: 'i' }, revisions: {} };
    // a few shapes sharing first keys, keys that sort differently by UTF-8 bytes, undefined members
    const shapes = [['user', 'action', 'resource'], ['user', 'action'], ['user', 'resource', 'action'], ['ｚ', '😀', 'z', 'a'], ['b', 'a'], Array.from({ length: 40 }, (_, i) => `k${40 - i}`)];
    for (let i = 0; i < 2000; i++) {
      const input = newPlainObject();
      for (const k of pickOf(r, shapes)) input[k] = r() < 0.1 ? (undefined as unknown as Value) : r() < 0.5 ? randomValue(r, 2) : { y: i, x: [i], w: { b: 1, a: 2 } };
      const d: LoggedDecision = { decision_id: `id-${i}`, input, timestamp: '2026-11-26T06:00:00.000Z' };
      writer.decision(d, ctx, text);
      expect(writer.toString()).toBe(encodeEvent(buildEvent(d, ctx)));
    }
  });

  it('keeps the bundles text of a frozen revisions object, and rewrites it for a new or unfrozen one', () => {
    const text = new EventText();
    const d: LoggedDecision = { decision_id: 'x', timestamp: '2026-01-01T00:00:00.000Z' };
    const labels = { id: 'i' };
    const check = (revisions: Record<string, string>) => expect(encodeDecision(d, { labels, revisions }, text)).toBe(encodeEvent(buildEvent(d, { labels, revisions })));
    const frozen = Object.freeze({ a: 'r1', b: 'r2' });
    check(frozen);
    check(frozen);
    check(Object.freeze({ a: 'r3' }));
    const open: Record<string, string> = { a: 'r4' };
    check(open);
    open['c'] = 'r5';
    check(open);
    check(Object.freeze({}));
  });
});

/** An input whose every read of `user` is counted (a copy or a second serialisation reads it again). */
function countedInput(): { input: Value; reads: () => number } {
  let n = 0;
  const input = { action: 'read', resource: { type: 'invoice', tags: ['q3'] } } as Record<string, Value>;
  Object.defineProperty(input, 'user', {
    enumerable: true,
    get: () => {
      n++;
      return 'alice';
    },
  });
  return { input: input as Value, reads: () => n };
}

describe('work per logged decision', () => {
  // A service nobody listens on: nothing is uploaded in these tests (manual trigger), the events are buffered.
  const config = validateConfig({ services: { s: { url: 'http://127.0.0.1:9' } }, decision_logs: { console: true, reporting: { trigger: 'manual' } } });
  const quiet = { info: () => {} } as unknown as ConstructorParameters<typeof DecisionLogPlugin>[0]['console'];

  it('reads the input once (one serialisation, no copy) for the feed, the console and the upload buffer alike', async () => {
    const p = new DecisionLogPlugin({ config, client: new ServiceClient(config.services['s']!), engine: new RegolithEngine(), labels: { id: 'x' }, console: quiet });
    const seen: string[] = [];
    p.subscribe((e) => seen.push(e));
    const { input, reads } = countedInput();
    let resultReads = 0;
    const result = {} as Record<string, Value>;
    Object.defineProperty(result, 'allow', { enumerable: true, get: () => (resultReads++, true) });
    // No mask or drop policy: synchronous, no promise to wait for.
    expect(p.record({ decision_id: 'd1', path: 'data.rbac.allow', input, result: result as Value, result_json: '{"allow":true}' })).toBeUndefined();
    expect(reads()).toBe(1);
    // The response's serialisation of the result is reused: the result is not read again.
    expect(resultReads).toBe(0);
    expect(p.counts.logged).toBe(1);
    expect(p.recent(10)).toEqual(seen);
    const ev = JSON.parse(seen[0]!) as Record<string, unknown>;
    expect(ev['input']).toEqual({ action: 'read', resource: { type: 'invoice', tags: ['q3'] }, user: 'alice' });
    expect(ev['result']).toEqual({ allow: true });
    // Without the response's text the result is serialised once.
    p.record({ decision_id: 'd2', path: 'data.rbac.allow', input, result: result as Value });
    expect(resultReads).toBe(1);
    expect(reads()).toBe(2);
  });

  it('goes through the mask policy only when one exists, and then masks what it names', async () => {
    const engine = new RegolithEngine();
    const p = new DecisionLogPlugin({ config, client: new ServiceClient(config.services['s']!), engine, labels: { id: 'x' }, console: quiet });
    await engine.putPolicy('mask.rego', 'package system.log\n\nmask contains "/input/user"\n');
    const { input } = countedInput();
    const pending = p.record({ decision_id: 'd1', path: 'data.rbac.allow', input, result: true });
    expect(pending).toBeInstanceOf(Promise);
    await pending;
    const ev = JSON.parse(p.recent(1)[0]!) as Record<string, unknown>;
    expect(ev['input']).toEqual({ action: 'read', resource: { type: 'invoice', tags: ['q3'] } });
    expect(ev['erased']).toEqual(['/input/user']);
  });
});
