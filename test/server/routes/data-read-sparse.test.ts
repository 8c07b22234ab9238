// POST /v1/data/<path> builds only the parts of the body's input that the decision can
// read (value/json-sparse.ts through Engine.inputNeeds), on the fast path and through
// Hono alike; every byte is still checked, and the input is built whole when an
// explanation or a decision log may show it, unless the log takes the input's text from the
// body (decisionLoggerReadsBody) and that text can be copied.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import type { EvalOptions, EvalResult } from '../../../src/engine/types.js';
import type { Value } from '../../../src/value/index.js';
import type { LoggedDecision } from '../../../src/server/context.js';
import { loggedInput } from '../../../src/plugins/logs/logged-values.js';
import { req } from '../helpers.js';

/** Remembers the input each decision was evaluated with. */
class Recording extends RegolithEngine {
  inputs: unknown[] = [];
  override evaluate(ref: Value[], opts: EvalOptions): EvalResult | Promise<EvalResult> {
    this.inputs.push(opts.input);
    return super.evaluate(ref, opts);
  }
}

const POLICY = `package tf
creates := count([1 | some rc in input.changes; "create" in rc.actions])
`;
// long enough for the sparse reader (shorter bodies are read whole: JSON.parse is cheaper there)
const BODY = JSON.stringify({ input: { changes: [{ actions: ['create'], before: { big: [1, 2, 3] } }, { actions: ['delete'] }], other: { x: 'y'.repeat(3000) } }, extra: 1 });
const READ = { changes: [{ actions: ['create'] }, { actions: ['delete'] }] };

async function server(logged: boolean, readsBody = false): Promise<{ s: RunningServer; engine: Recording; events: LoggedDecision[] }> {
  const engine = new Recording();
  const events: LoggedDecision[] = [];
  const s = await startServer({
    addr: '127.0.0.1:0',
    engine,
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    ...(logged ? { decisionLogger: (e) => void events.push(e), decisionLoggerReadsBody: readsBody } : {}),
  });
  const put = await req(s, 'PUT', '/v1/policies/tf.rego', POLICY, { 'content-type': 'text/plain' });
  expect(put.status, put.text).toBe(200);
  return { s, engine, events };
}

describe('POST /v1/data input read where the decision looks', () => {
  let plain: Awaited<ReturnType<typeof server>>;
  let logged: Awaited<ReturnType<typeof server>>;
  let reads: Awaited<ReturnType<typeof server>>;
  beforeAll(async () => {
    plain = await server(false);
    logged = await server(true);
    reads = await server(true, true);
  });
  afterAll(async () => {
    await plain.s.close();
    await logged.s.close();
    await reads.s.close();
  });

  it('evaluates with the parts the policy reads, on the fast path and through Hono', async () => {
    for (const path of ['/v1/data/tf/creates', '/v1/data/tf/creates?']) {
      plain.engine.inputs.length = 0;
      const r = await req(plain.s, 'POST', path, BODY);
      expect(r.text).toBe('{"result":1}\n');
      expect(plain.engine.inputs).toEqual([READ]);
    }
  });

  it('answers a fault in a part it does not build as any malformed body', async () => {
    const bad = BODY.replace('[1,2,3]', '[1,2,]');
    const r = await req(plain.s, 'POST', '/v1/data/tf/creates', bad);
    expect(r.status).toBe(400);
    expect((r.json as { code: string; message: string }).code).toBe('invalid_parameter');
    expect((r.json as { message: string }).message).toMatch(/^body contains malformed input document: /);
    const after = await req(plain.s, 'POST', '/v1/data/tf/creates', BODY + ' x');
    expect(after.status).toBe(400);
  });

  it('builds the whole input for an explanation and when decisions are logged', async () => {
    plain.engine.inputs.length = 0;
    await req(plain.s, 'POST', '/v1/data/tf/creates?explain=notes', BODY);
    expect(plain.engine.inputs).toEqual([JSON.parse(BODY).input]);
    const r = await req(logged.s, 'POST', '/v1/data/tf/creates', BODY);
    expect((r.json as { result: number }).result).toBe(1);
    expect(logged.engine.inputs).toEqual([JSON.parse(BODY).input]);
    expect((logged.events[0] as { input: unknown }).input).toEqual(JSON.parse(BODY).input);
  });

  it('reads only the parts the policy reads for a logger that takes the input text from the body, which logs it whole', async () => {
    const whole = JSON.parse(BODY).input as Value;
    const sole = JSON.stringify({ input: whole });
    for (const path of ['/v1/data/tf/creates', '/v1/data/tf/creates?']) {
      reads.engine.inputs.length = 0;
      reads.events.length = 0;
      const r = await req(reads.s, 'POST', path, sole);
      expect(r.text).toMatch(/^\{"result":1,"decision_id":/);
      expect(reads.engine.inputs).toEqual([READ]);
      const [ev] = reads.events;
      expect(ev!.input_partial).toBe(true);
      expect(ev!.input).toEqual(READ);
      expect(loggedInput(ev!)).toEqual(whole);
    }
  });

  it('reads the input whole again when the text cannot stand for it: another key, the key twice, a letter escaped', async () => {
    const whole = JSON.parse(BODY).input as Value;
    const first = JSON.stringify({ changes: [] });
    const cases = [
      { body: BODY, input: whole }, // another key ("extra")
      { body: `{"input":${first},"input":${JSON.stringify(whole)}}`, input: whole }, // the key twice: the last counts
      { body: JSON.stringify({ input: whole }).replace('"create"', '"cr\\u0065ate"'), input: whole }, // a letter escaped
    ];
    for (const c of cases) {
      reads.engine.inputs.length = 0;
      reads.events.length = 0;
      const r = await req(reads.s, 'POST', '/v1/data/tf/creates', c.body);
      expect((r.json as { result: number }).result).toBe(1);
      expect(reads.engine.inputs).toEqual([c.input]);
      const [ev] = reads.events;
      expect(ev!.input_partial).toBeUndefined();
      expect(ev!.input).toEqual(c.input);
    }
    // and a fault where the policy does not look is still a malformed body
    const bad = JSON.stringify({ input: whole }).replace('[1,2,3]', '[1,2,]');
    expect((await req(reads.s, 'POST', '/v1/data/tf/creates', bad)).status).toBe(400);
  });
});
