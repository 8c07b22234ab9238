// A worker's logged decisions on their way to the primary (decision-wire.ts): the worker
// writes each event but its bundles and labels, and through the cluster's structured clone
// the event the primary puts together is the one a single process writes, byte for byte;
// a partial input never crosses without its text.

import { describe, expect, it } from 'vitest';
import { deserialize, serialize } from 'node:v8';
import { DecisionWriter, readEvents } from '../../../src/runtime/workers/decision-wire.js';
import { inputText, parseJSON, toJSONText, type Value } from '../../../src/value/index.js';
import { buildEvent, EventText, type EventContext, type LoggedDecision } from '../../../src/plugins/logs/event.js';
import { EventWriter, type WrittenEvent } from '../../../src/plugins/logs/event-bytes.js';
import { pickOf, plainValue, randomValue } from '../../plugins/logs/random-values.js';
import { seededRandom } from '../../seeded-random.js';

describe('decision events sent to the primary', () => {
  const text = new EventText();
  const base = { labels: { id: 'i', version: '0.1.0' }, revisions: { b: 'r1' } };
  // as the plugin adds the revisions a decision names itself (an adapter's data)
  const ctxOf = (d: { revisions?: Record<string, string> }): EventContext => (d.revisions ? { ...base, revisions: { ...base.revisions, ...d.revisions } } : base);
  /** What one process writes for `d`. */
  const alone = (d: LoggedDecision): string => {
    const w = new EventWriter();
    w.decision(d, ctxOf(d), text);
    return w.toString();
  };
  interface Received {
    event: string;
    ndCache: boolean;
    revisions: Record<string, string> | undefined;
  }
  /** What the primary puts together from a batch: the message through structured clone, as the cluster's `advanced` IPC sends it. */
  const received = (batch: Buffer): Received[] => {
    const out: Received[] = [];
    const w = new EventWriter();
    readEvents(deserialize(serialize({ t: 'decisions', batch })).batch, (e: WrittenEvent) => {
      w.assemble(e.buf, e.start, e.split, e.end, ctxOf(e), text);
      out.push({ event: w.toString(), ndCache: e.ndCache, revisions: e.revisions });
    });
    return out;
  };
  const overIPC = (d: LoggedDecision): Received => {
    const w = new DecisionWriter();
    w.add(d);
    const got = received(w.take());
    expect(got).toHaveLength(1);
    return got[0]!;
  };
  const whole = { user: 'alice', items: [{ id: 1, n: 2.5 }], z: null };
  const body = Buffer.from(`{"input":${JSON.stringify(whole)}}`);

  it('are the event one process would log, byte for byte, for every shape of decision', () => {
    const r = seededRandom(3030);
    for (let i = 0; i < 1500; i++) {
      const d: LoggedDecision = { decision_id: `id-${i}`, timestamp: '2026-11-27T06:00:00.000Z' };
      // string fields short and long, ASCII and not (the writer copies short ASCII byte by byte)
      if (r() < 0.8) d.path = pickOf(r, ['data.rbac.allow', 'data.a["b c"][0].d', 'data.a["é"].b', `data.${'p'.repeat(70)}`, `data.x["${'ü'.repeat(40)}"]`]);
      if (r() < 0.2) d.query = pickOf(r, ['x = data.q', 'x = "ß"', `x = "${'q'.repeat(63)}é"`]);
      if (r() < 0.3) {
        // the body's own text, as the server hands it over (kept as the client wrote it)
        const json = JSON.stringify(plainValue(r, 4));
        const b = Buffer.from(`{"input":${json}}`);
        d.input = (parseJSON(b.toString()) as Record<string, Value>)['input']!;
        d.input_text = inputText(b);
        if (r() < 0.5) d.input_partial = true;
      } else if (r() < 0.8) d.input = randomValue(r, 4);
      if (r() < 0.7) d.result = randomValue(r, 3);
      if (d.result !== undefined && r() < 0.5) d.result_json = toJSONText(d.result);
      if (r() < 0.2) d.error = { code: 'internal_error', message: 'bad "thing"\n' };
      if (r() < 0.4) d.requested_by = pickOf(r, ['127.0.0.1:5000', '[::1]:5000', 'ünïcode-peer']);
      if (r() < 0.3) d.metrics = { timer_rego_query_eval_ns: 1200 };
      if (r() < 0.2) d.nd_builtin_cache = randomValue(r, 2);
      if (r() < 0.2) d.req_id = i;
      if (r() < 0.2) [d.trace_id, d.span_id] = ['4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7'];
      if (r() < 0.1) d.revisions = { 'adapter/x': 'r"2', é: String(i) };
      const got = overIPC(d);
      expect(got.event).toBe(alone(d));
      expect(got.ndCache).toBe(d.nd_builtin_cache !== undefined);
      expect(got.revisions).toEqual(d.revisions);
      // and read back, the event object the mask and drop policies take (a set in a library
      // caller's input is an array once written, as in the event's text)
      const partial = d.input_partial ? { ...d, input: parseJSON(d.input_text!.toString()) } : d;
      expect(toJSONText(parseJSON(got.event))).toBe(toJSONText(buildEvent(partial, ctxOf(d))));
    }
  });

  it('carry the whole input of a decision that read only part of it (its text from the body)', () => {
    const got = overIPC({ decision_id: 'd', input: { user: 'alice' }, input_text: inputText(body), input_partial: true, result: true });
    expect(JSON.parse(got.event)).toMatchObject({ decision_id: 'd', input: whole, result: true, labels: base.labels, bundles: { b: { revision: 'r1' } } });
  });

  it('carry many decisions in one batch, in order, however large, and nothing once taken', () => {
    const r = seededRandom(77);
    const w = new DecisionWriter();
    const sent: LoggedDecision[] = [];
    for (let i = 0; i < 300; i++) {
      // some larger than the writer's first buffer
      const d: LoggedDecision = { decision_id: `d${i}`, input: i % 50 === 0 ? { s: 'é'.repeat(40_000) } : randomValue(r, 3), result: i, timestamp: 't' };
      if (i % 7 === 0) d.revisions = { [`adapter/${i}`]: 'r' };
      sent.push(d);
      w.add(d);
    }
    expect(w.count).toBe(300);
    expect(received(w.take()).map((e) => e.event)).toEqual(sent.map(alone));
    expect(w.count).toBe(0);
    expect(received(w.take())).toEqual([]);
  });

  it('refuse a partial input without its text, and the batch goes on without it', () => {
    const twice = Buffer.from(`{"input":{"user":"mallory"},"input":${JSON.stringify(whole)}}`);
    expect(inputText(twice)).toBeUndefined();
    // the value stands for the input when the body's text cannot
    expect(JSON.parse(overIPC({ decision_id: 'd', input: whole, input_text: inputText(twice) }).event).input).toEqual(whole);
    const w = new DecisionWriter();
    w.add({ decision_id: 'a', result: 1 });
    expect(() => w.add({ decision_id: 'b', input: { user: 'alice' }, input_text: inputText(twice), input_partial: true })).toThrow(/without the input text/);
    w.add({ decision_id: 'c', result: 2 });
    expect(w.count).toBe(2);
    expect(received(w.take()).map((e) => JSON.parse(e.event).decision_id)).toEqual(['a', 'c']);
  });
});
