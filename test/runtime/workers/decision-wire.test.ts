// A worker's logged decisions on their way to the primary (decision-wire.ts): through the
// cluster's structured clone, the event the primary writes is the one a single process
// writes, byte for byte, and a partial input never crosses without its text.

import { describe, expect, it } from 'vitest';
import { deserialize, serialize } from 'node:v8';
import { DecisionWriter, readDecisions } from '../../../src/runtime/workers/decision-wire.js';
import { inputText, parseJSON, toJSONText, type Value } from '../../../src/value/index.js';
import { buildEvent, encodeDecision, EventText, type LoggedDecision } from '../../../src/plugins/logs/event.js';
import { EventWriter } from '../../../src/plugins/logs/event-bytes.js';
import { loggedInput, loggedResult } from '../../../src/plugins/logs/logged-values.js';
import { pickOf, plainValue, randomValue } from '../../plugins/logs/random-values.js';
import { seededRandom } from '../../seeded-random.js';

describe('decision events sent to the primary', () => {
  const text = new EventText();
  const base = { labels: { id: 'i', version: '0.1.0' }, revisions: { b: 'r1' } };
  // as the plugin adds the revisions a decision names itself (an adapter's data)
  const ctxOf = (d: LoggedDecision) => (d.revisions ? { ...base, revisions: { ...base.revisions, ...d.revisions } } : base);
  /** What the primary receives: the message through structured clone, as the cluster's `advanced` IPC sends it. */
  const overIPC = (d: LoggedDecision): LoggedDecision => {
    const w = new DecisionWriter();
    w.add(d);
    return readDecisions(deserialize(serialize({ t: 'decisions', batch: w.take() })).batch)[0]!;
  };
  const bytes = (d: LoggedDecision): string => {
    const w = new EventWriter();
    w.decision(d, ctxOf(d), text);
    return w.toString();
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
      } else if (r() < 0.8) d.input = randomValue(r, 4);
      if (r() < 0.7) d.result = randomValue(r, 3);
      if (d.result !== undefined && r() < 0.5) d.result_json = toJSONText(d.result);
      if (r() < 0.2) d.error = { code: 'internal_error', message: 'bad "thing"\n' };
      if (r() < 0.4) d.requested_by = pickOf(r, ['127.0.0.1:5000', '[::1]:5000', 'ünïcode-peer']);
      if (r() < 0.3) d.metrics = { timer_rego_query_eval_ns: 1200 };
      if (r() < 0.2) d.nd_builtin_cache = randomValue(r, 2);
      if (r() < 0.2) d.req_id = i;
      if (r() < 0.2) [d.trace_id, d.span_id] = ['4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7'];
      if (r() < 0.1) d.revisions = { 'adapter/x': 'r"2' };
      const got = overIPC(d);
      expect(bytes(got)).toBe(bytes(d));
      expect(encodeDecision(got, ctxOf(got), text)).toBe(encodeDecision(d, ctxOf(d), text));
      // and the event object the mask and drop policies take, as JSON (a set in a library
      // caller's input is an array once it crosses, as in the event's text)
      expect(toJSONText(buildEvent(got, ctxOf(got)))).toBe(toJSONText(buildEvent(d, ctxOf(d))));
    }
  });

  it('carry the whole input of a decision that read only part of it (its text from the body), with no input value', () => {
    const d = overIPC({ decision_id: 'd', input: { user: 'alice' }, input_text: inputText(body), input_partial: true, result: true });
    expect(d.input_text!.toString()).toBe(JSON.stringify(whole));
    expect(loggedInput(d)).toEqual(whole);
    expect(JSON.parse(bytes(d)).input).toEqual(whole);
    expect(loggedResult(d)).toBe(true);
  });

  it('carry many decisions in one batch, in order, however large, and nothing once taken', () => {
    const r = seededRandom(77);
    const w = new DecisionWriter();
    const sent: LoggedDecision[] = [];
    for (let i = 0; i < 300; i++) {
      // some larger than the writer's first buffer
      const d: LoggedDecision = { decision_id: `d${i}`, input: i % 50 === 0 ? { s: 'é'.repeat(40_000) } : randomValue(r, 3), result: i, timestamp: 't' };
      sent.push(d);
      w.add(d);
    }
    expect(w.count).toBe(300);
    const got = readDecisions(w.take());
    expect(got.map((d) => d.decision_id)).toEqual(sent.map((d) => d.decision_id));
    got.forEach((d, i) => expect(bytes(d)).toBe(bytes(sent[i]!)));
    expect(w.count).toBe(0);
    expect(readDecisions(w.take())).toEqual([]);
  });

  it('carry the input value when the body cannot stand for it, and refuse a partial input without its text', () => {
    const twice = Buffer.from(`{"input":{"user":"mallory"},"input":${JSON.stringify(whole)}}`);
    expect(inputText(twice)).toBeUndefined();
    expect(loggedInput(overIPC({ decision_id: 'd', input: whole, input_text: inputText(twice) }))).toEqual(whole);
    expect(loggedInput(overIPC({ decision_id: 'd', input: whole }))).toEqual(whole);
    expect(() => new DecisionWriter().add({ decision_id: 'd', input: { user: 'alice' }, input_text: inputText(twice), input_partial: true })).toThrow(/without the input text/);
  });
});
