// Which process answers a request under --workers, as derived from the routes'
// declarations: the table the --workers end-to-end test (test/cli/workers.test.ts) relies
// on — writes, /v1/status, /metrics, events and the console's impact, status and recent
// decisions at the primary; decisions, reads, the playground, the pages and the live
// stream at the worker — and every route the app and the console register is declared.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { deserialize, serialize } from 'node:v8';
import { primaryOwns } from '../../../src/runtime/workers/protocol.js';
import { DecisionWriter, readDecisions } from '../../../src/runtime/workers/decision-wire.js';
import { DecisionBatch } from '../../../src/runtime/workers/decision-batch.js';
import { inputText, parseJSON, toJSONText, type Value } from '../../../src/value/index.js';
import { buildEvent, encodeDecision, EventText, type LoggedDecision } from '../../../src/plugins/logs/event.js';
import { EventWriter } from '../../../src/plugins/logs/event-bytes.js';
import { loggedInput } from '../../../src/plugins/logs/logged-input.js';
import { pickOf, plainValue, randomValue } from '../../plugins/logs/random-values.js';
import { seededRandom } from '../../seeded-random.js';
import { createApp, SERVER_ROUTES } from '../../../src/server/index.js';
import { CONSOLE_ROUTES, consoleRoutes } from '../../../src/console/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';

const PRIMARY: [string, string][] = [
  ['PUT', '/v1/data'],
  ['PUT', '/v1/data/kv/items/a'],
  ['PATCH', '/v1/data'],
  ['PATCH', '/v1/data/kv'],
  ['DELETE', '/v1/data/kv/ryw'],
  ['DELETE', '/v1/data'],
  ['PUT', '/v1/policies/extra'],
  ['DELETE', '/v1/policies/extra'],
  ['GET', '/v1/status'],
  // the active configuration: the primary's, which discovery may have changed
  ['GET', '/v1/config'],
  ['GET', '/metrics'],
  ['POST', '/v1/events/ci'],
  ['POST', '/v1/events'],
  ['POST', '/ui/api/impact'],
  ['GET', '/ui/api/status'],
  ['GET', '/ui/api/decisions'],
];

const WORKER: [string, string][] = [
  ['POST', '/v1/data/authz/allow'],
  ['GET', '/v1/data/kv/items'],
  ['GET', '/v1/data'],
  ['POST', '/'],
  ['POST', '/v0/data/authz/allow'],
  ['POST', '/v1/batch/data/authz'],
  ['GET', '/v1/query'],
  ['POST', '/v1/query'],
  ['POST', '/v1/compile'],
  ['GET', '/v1/compile/filters/include'],
  ['GET', '/v1/policies'],
  ['GET', '/v1/policies/extra'],
  ['GET', '/health'],
  ['GET', '/health/live'],
  ['GET', '/'],
  ['GET', '/ui'],
  ['GET', '/ui/'],
  ['GET', '/ui/assets/app-1234.js'],
  ['POST', '/ui/api/eval'],
  ['POST', '/ui/api/fmt'],
  ['GET', '/ui/api/decisions/stream'],
  // no route: answered (404 or 405) where it arrives
  ['GET', '/v1/status/x'],
  ['GET', '/metricsx'],
  ['PATCH', '/v1/policies/x'],
  ['POST', '/v1/eventsx'],
];

describe('primaryOwns, derived from the route declarations', () => {
  it.each(PRIMARY)('the primary answers %s %s', (method, path) => expect(primaryOwns(method, path)).toBe(true));
  it.each(WORKER)('a worker answers %s %s', (method, path) => expect(primaryOwns(method, path)).toBe(false));

  it('has a declaration for every route a worker registers, console included', () => {
    const { app } = createApp({
      engine: new RegolithEngine(),
      processMetrics: false,
      events: { has: () => false, handle: async () => ({ status: 200, body: {} }) },
      families: [consoleRoutes({ assetsDir: '/nonexistent' })],
    });
    const registered = new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`));
    const declared = new Set([...SERVER_ROUTES, ...CONSOLE_ROUTES].map((r) => `${r.method} ${r.path}`));
    expect([...registered].sort()).toEqual([...declared].sort());
  });
});

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
      if (r() < 0.8) d.path = pickOf(r, ['data.rbac.allow', 'data.a["b c"][0].d']);
      if (r() < 0.2) d.query = 'x = data.q';
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
      if (r() < 0.4) d.requested_by = '127.0.0.1:5000';
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
    expect(d.result).toBe(true);
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

describe("a worker's batch of logged decisions", () => {
  afterEach(() => vi.useRealTimers());
  const ids = (b: Buffer) => readDecisions(b).map((d) => d.decision_id);

  it('goes a few milliseconds after its first decision, in order, or at once when large, or when flushed', () => {
    vi.useFakeTimers();
    const sent: string[][] = [];
    const batch = new DecisionBatch((b) => sent.push(ids(b)));
    batch.push({ decision_id: '1' });
    batch.push({ decision_id: '2' });
    vi.advanceTimersByTime(99);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([['1', '2']]);
    // nothing pending: no message
    vi.advanceTimersByTime(500);
    batch.flush();
    expect(sent).toHaveLength(1);
    for (let i = 0; i < 512; i++) batch.push({ decision_id: String(i) });
    expect(sent).toHaveLength(2);
    expect(sent[1]).toHaveLength(512);
    batch.push({ decision_id: '600' });
    batch.flush();
    expect(sent[2]).toEqual(['600']);
    // the timer of a flushed batch does not send it again
    vi.advanceTimersByTime(500);
    expect(sent).toHaveLength(3);
    // large inputs: a batch goes once it holds a MiB
    const big = { decision_id: 'big', input: { s: 'x'.repeat(300_000) } };
    for (let i = 0; i < 3; i++) batch.push(big);
    expect(sent).toHaveLength(3);
    batch.push(big);
    expect(sent).toHaveLength(4);
    expect(sent[3]).toHaveLength(4);
  });
});
