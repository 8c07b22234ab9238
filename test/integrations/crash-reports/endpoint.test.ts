// The crash_report event adapter end to end: a real server with the shipped triage policy
// takes Tombstone protobufs at POST /v1/events/crashes (Bearer token, Content-Type
// application/x-protobuf), answers {decision_id, result} and ships every decision, with the
// decoded report as its input, to a decision-log collector.

import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { gunzipJSON, httpServer, waitFor } from '../../loopback.js';
import { serve, shippedPolicy, type Served } from '../../plugins/adapters/harness.js';
import { BIG, encode, FINGERPRINT, FULL, fullBuffer, TID, withField } from './fixtures.js';

const running: Served[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  for (const c of closers.splice(0)) await c();
});

async function collector() {
  const c = Object.assign(await httpServer(() => {}), { events: [] as Record<string, any>[] });
  c.handler = (req, res) => {
    c.events.push(...(gunzipJSON(req.body) as Record<string, any>[]));
    res.statusCode = 204;
    res.end();
  };
  closers.push(() => c.close());
  return c;
}

async function crashServer(data: Record<string, unknown> = { fingerprints: [FINGERPRINT] }) {
  const logs = await collector();
  const s = await serve(
    {
      services: { logs: { url: logs.url } },
      adapters: { crashes: { type: 'crash_report', rule: 'data.regolith.crash_triage.decision', token: 'crash-secret' } },
      decision_logs: { service: 'logs', reporting: { min_delay_seconds: 1, max_delay_seconds: 1 } },
    },
    { 'triage.rego': shippedPolicy('crash-triage/triage.rego') },
  );
  running.push(s);
  const put = await fetch(`${s.server.url}/v1/data/crash_triage`, { method: 'PUT', body: JSON.stringify(data), headers: { 'content-type': 'application/json' } });
  expect(put.status).toBe(204);
  return { s, logs };
}

async function postCrash(s: Served, body: Uint8Array | string, headers: Record<string, string> = {}) {
  const r = await fetch(`${s.server.url}/v1/events/crashes`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-protobuf', authorization: 'Bearer crash-secret', ...headers },
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

describe('crash_report event adapter', () => {
  it('triages a Tombstone with the shipped policy, answers its decision_id and logs the decision', async () => {
    const { s, logs } = await crashServer();
    const r = await postCrash(s, fullBuffer());
    expect(r.status).toBe(200);
    expect(r.body.decision_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.result).toMatchObject({ severity: 'critical', bucket: 'SIGSEGV:USE_AFTER_FREE:Renderer::draw(Frame*)', known_build: true });
    expect(r.body.result.reasons).toEqual(
      expect.arrayContaining([
        'signal SIGSEGV (SEGV_MTESERR)',
        `fault address ${BIG.fault}`,
        'abort message: Scudo ERROR: use after free',
        'memory error: SCUDO USE_AFTER_FREE: [MTE]: Use After Free, 0 bytes into a 32-byte allocation at 0xb00007a12345670',
        `crashing thread ${TID} (RenderThread): Renderer::draw(Frame*) <- Renderer::flush() <- libfoo.so+0x1002 <- Looper::pollOnce(int) <- __start_thread`,
      ]),
    );
    await waitFor('the decision log event', () => logs.events.find((e) => e.decision_id === r.body.decision_id));
    const ev = logs.events.find((e) => e.decision_id === r.body.decision_id)!;
    expect(ev).toMatchObject({ path: 'regolith/crash_triage/decision', requested_by: 'adapter:crashes', result: r.body.result });
    // the logged input is the decoded report, 64-bit values exact
    expect(ev.input.signal_info.fault_address).toBe(BIG.fault);
    expect(ev.input.threads[String(TID)].registers[0].u64).toBe(BIG.x0);
    expect(ev.input._unknown_fields).toEqual([]);
  });

  it('an abort of an unknown build: medium, bucketed past the libc frame, top_frames from data.crash_triage', async () => {
    const { s } = await crashServer({ fingerprints: ['another/build'], top_frames: 2 });
    const abort = encode({
      build_fingerprint: 'custom/build',
      tid: 9,
      abort_message: 'Check failed',
      signal_info: { number: 6, name: 'SIGABRT', code: -6, code_name: 'SI_TKILL' },
      threads: { 9: { id: 9, name: 'main', current_backtrace: [FULL.threads[TID].current_backtrace[4], FULL.threads[TID].current_backtrace[3]] } },
    });
    const r = await postCrash(s, abort, { 'content-type': 'application/x-protobuf; charset=binary' });
    expect(r.status).toBe(200);
    expect(r.body.result).toEqual({
      severity: 'medium',
      bucket: 'SIGABRT:Looper::pollOnce(int)',
      known_build: false,
      reasons: ['abort message: Check failed', 'crashing thread 9 (main): __start_thread <- Looper::pollOnce(int)', 'signal SIGABRT (SI_TKILL)', 'unknown build: "custom/build" is not on the fingerprint allow-list'],
    });
  });

  it('refuses another content type (415), garbage (400, with the reason) and a missing token (401), logging nothing', async () => {
    const { s, logs } = await crashServer();
    const json = await postCrash(s, '{"tid": 1}', { 'content-type': 'application/json' });
    expect(json).toMatchObject({ status: 415, body: { code: 'invalid_parameter' } });
    expect(json.body.message).toBe('event adapter crashes: a crash report is sent as Content-Type: application/x-protobuf, not "application/json"');
    const none = await fetch(`${s.server.url}/v1/events/crashes`, { method: 'POST', body: fullBuffer(), headers: { authorization: 'Bearer crash-secret' } });
    expect(none.status).toBe(415);
    const garbage = await postCrash(s, Uint8Array.from([0x12, 0x05, 0x41]));
    expect(garbage).toMatchObject({ status: 400, body: { code: 'invalid_parameter' } });
    expect(garbage.body.message).toBe('event adapter crashes: crash report is not a valid Tombstone: field build_fingerprint declares 5 bytes at offset 2, but only 1 remain');
    const truncated = await postCrash(s, fullBuffer().subarray(0, 1000));
    expect(truncated.status).toBe(400);
    expect(truncated.body.message).toMatch(/crash report is not a valid Tombstone: /);
    expect((await postCrash(s, new Uint8Array())).body.message).toMatch(/the crash report is empty/);
    expect((await postCrash(s, fullBuffer(), { authorization: 'Bearer wrong' })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 100));
    expect(logs.events).toHaveLength(0);
  });

  it('accepts a gzipped report (Content-Encoding: gzip)', async () => {
    const { s } = await crashServer();
    const r = await postCrash(s, gzipSync(fullBuffer()), { 'content-encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect(r.body.result.severity).toBe('critical');
  });

  it('reports unknown fields to the policy without failing', async () => {
    const { s } = await crashServer();
    const buf = withField(fullBuffer(), 600, 0, (w) => w.uint32(1));
    const r = await postCrash(s, buf);
    expect(r.status).toBe(200);
    expect(r.body.result.reasons).toContain('the report carries 1 field(s) this server does not know');
  });
});
