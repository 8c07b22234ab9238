// With decisions logged by a logger that takes the input's text from the body, the server
// reads large bodies only where the policy looks and hands the log the body: whatever the body
// (keys in any order, padding around the 2,000-byte line, another top-level key before or
// after, the key "input" twice, escaped letters, whitespace), the decision must be the one the
// body's input (as JSON.parse reads it: the last key wins) gives, and the event the plugin's
// writer makes from what the server reported must show that same whole input.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import type { LoggedDecision } from '../../../src/server/context.js';
import { EventWriter } from '../../../src/plugins/logs/event-bytes.js';
import { EventText } from '../../../src/plugins/logs/event.js';
import { equal, parseJSON, type Value } from '../../../src/value/index.js';
import { req } from '../helpers.js';
import { seededRandom } from '../../seeded-random.js';

const RUNS = Number(process.env['LOGGED_INPUT_RUNS'] ?? 200);
const SEED = Number(process.env['LOGGED_INPUT_SEED'] ?? 1127);

const POLICY = `package tf
creates := count([1 | some rc in input.changes; "create" in rc.actions])
`;

/** The decision as the policy states it, from the input JSON.parse reads. */
function creates(input: unknown): number {
  const changes = (input as { changes?: unknown } | null)?.changes;
  if (!Array.isArray(changes)) return 0;
  return changes.filter((c) => Array.isArray((c as { actions?: unknown })?.actions) && ((c as { actions: unknown[] }).actions.includes('create'))).length;
}

function body(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const ws = (): string => (r() < 0.8 ? '' : pick([' ', '\n', '  ']));
  const action = (): string => {
    const a = pick(['create', 'delete', 'update']);
    // a letter escaped now and then (the text then cannot be copied)
    return r() < 0.03 ? JSON.stringify(a).replace(a[0]!, `\\u00${a.charCodeAt(0).toString(16)}`) : JSON.stringify(a);
  };
  const change = (): string => {
    const members = [`"actions":[${Array.from({ length: 1 + Math.floor(r() * 2) }, action).join(',')}]`, `"address":${JSON.stringify('aws_s3.' + pick(['a', 'b', 'é', 'say "hi"']))}`];
    // padding the policy does not read, so that some bodies pass 2,000 bytes
    if (r() < 0.7) members.push(`"before":{"big":${JSON.stringify('x'.repeat(Math.floor(r() * 1500)))},"n":[1,2.50,-0]}`);
    if (r() < 0.05) members.push(`"input":${JSON.stringify({ nested: true })}`);
    if (r() < 0.5) members.reverse();
    return '{' + ws() + members.join(',' + ws()) + ws() + '}';
  };
  const input = (): string => {
    const members = [`"changes":[${Array.from({ length: Math.floor(r() * 5) }, change).join(',')}]`, `"user":${JSON.stringify(pick(['alice', 'bob']))}`];
    if (r() < 0.5) members.reverse();
    return '{' + members.join(',' + ws()) + '}';
  };
  const k = r();
  if (k < 0.6) return `{"input":${ws()}${input()}${ws()}}`;
  if (k < 0.7) return `{"input":${input()},"input":${input()}}`;
  if (k < 0.75) return `{"input":${input()},"\\u0069nput":${input()}}`;
  if (k < 0.85) return `{"input":${input()},"extra":${input()}}`;
  if (k < 0.9) return `{"extra":1,"input":${input()}}`;
  return `{ "input" : ${input()} }`;
}

describe('a logged decision whose body is read where the policy looks', () => {
  let s: RunningServer;
  const events: LoggedDecision[] = [];
  beforeAll(async () => {
    s = await startServer({
      addr: '127.0.0.1:0',
      engine: new RegolithEngine(),
      logger: pino({ level: 'silent' }),
      processMetrics: false,
      decisionLogger: (e) => void events.push(e),
      decisionLoggerReadsBody: true,
    });
    expect((await req(s, 'PUT', '/v1/policies/tf.rego', POLICY, { 'content-type': 'text/plain' })).status).toBe(200);
  });
  afterAll(() => s.close());

  it(`decides on the whole input and logs it whole (${RUNS} generated bodies, seed ${SEED})`, async () => {
    const r = seededRandom(SEED);
    const writer = new EventWriter();
    const text = new EventText();
    let partial = 0;
    let large = 0;
    for (let run = 0; run < RUNS; run++) {
      const b = body(r);
      const input = (parseJSON(b) as Record<string, Value>)['input']!;
      if (b.length >= 2000) large++;
      events.length = 0;
      const res = await req(s, 'POST', '/v1/data/tf/creates', b);
      const where = `seed ${SEED}, run ${run}: ${b.slice(0, 300)}`;
      expect(res.status, where).toBe(200);
      expect((res.json as { result: number }).result, where).toBe(creates(JSON.parse(b).input));
      expect(events, where).toHaveLength(1);
      const ev = events[0]!;
      if (ev.input_partial) partial++;
      writer.decision(ev, { labels: {}, revisions: {} }, text);
      const event = JSON.parse(writer.toString()) as { input: Value };
      // nothing of the body outside the input (another key copied along would be a field of the event)
      expect(Object.keys(event), where).toEqual(['decision_id', 'input', 'labels', 'path', 'requested_by', 'result', 'timestamp']);
      if (!equal(event.input, input)) throw new Error(`the event's input is not the body's (${where})`);
    }
    // the generator reaches the sparse read
    expect(large).toBeGreaterThan(RUNS / 5);
    expect(partial).toBeGreaterThan(RUNS / 20);
  });
});
