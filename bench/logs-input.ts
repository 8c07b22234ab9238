// A decision-log event's `input`, written from the parsed value or copied from the request
// body (value/json-input-text.ts), by body size, next to parsing that body: the writer's
// cost per event (µs, best of three runs) with and without the body. In one process, no HTTP.
//   npx tsx bench/logs-input.ts
import { parseJSON } from '../src/value/json-read.js';
import { inputText } from '../src/value/json-input-text.js';
import { EventWriter } from '../src/plugins/logs/event-bytes.js';
import { EventText, type LoggedDecision } from '../src/plugins/logs/event.js';

const ctx = { labels: { id: 'bench', version: '0' }, revisions: {} };
for (const n of [1, 20, 200, 2000]) {
  const items = Array.from({ length: n }, (_, i) => ({ id: `item-${i}`, owner: `user-${i % 97}`, tags: ['a', 'b', 'c'], size: i * 13, nested: { path: `/srv/data/${i}`, ok: i % 2 === 0 } }));
  const body = Buffer.from(JSON.stringify({ input: { user: 'alice', items } }));
  const input = (parseJSON(body.toString()) as Record<string, never>)['input'];
  const writer = new EventWriter();
  const text = new EventText();
  const d: LoggedDecision = { decision_id: 'd', path: 'data.x.allow', input, result: true, result_json: 'true', requested_by: '127.0.0.1', timestamp: '2026-01-01T00:00:00Z' };
  const reps = Math.max(20, Math.floor(2e6 / body.length));
  const time = (f: () => unknown): number => {
    for (let i = 0; i < reps; i++) f();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) f();
    return Number(process.hrtime.bigint() - t0) / 1000 / reps;
  };
  const best = (f: () => unknown) => Math.min(time(f), time(f), time(f));
  const withBody: LoggedDecision = { ...d, input_text: inputText(body) };
  const written = best(() => writer.decision(d, ctx, text));
  // (the server's check of the text counted with the copy)
  const copied = best(() => {
    withBody.input_text = inputText(body);
    writer.decision(withBody, ctx, text);
  });
  const parsed = best(() => parseJSON(body.toString()));
  console.log(`body ${body.length} B: event written ${written.toFixed(2)} µs, copied ${copied.toFixed(2)} µs; parsing the body ${parsed.toFixed(2)} µs`);
}
