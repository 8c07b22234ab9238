// http.send through the evaluator against real loopback servers: a decision waiting on a
// slow server never holds up other decisions; timeouts, error statuses, raise_error and
// force_cache behave as in OPA, over HTTP and over HTTPS with a certificate made here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { startLoopbackServers, type LoopbackServers } from './loopback-servers.js';
import { Regolith, RegoEvalError } from '../../../src/index.js';
import { clearHttpSendCache } from '../../../src/eval/builtins/http/index.js';

let base = '';
let tlsBase = '';
let caPem = '';
let release: (() => void) | undefined;
const counts = new Map<string, number>();

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const p = new URL(req.url!, 'http://x').pathname;
  counts.set(p, (counts.get(p) ?? 0) + 1);
  if (p === '/hold') {
    // Answers only when the test releases it.
    release = () => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"late": true}');
    };
    return;
  }
  if (p === '/forever') return; // never answers: only a timeout ends the wait
  if (p === '/teapot') {
    res.writeHead(418, { 'Content-Type': 'application/json' });
    res.end('{"short": "and stout"}');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ n: counts.get(p) }));
}

let servers: LoopbackServers;

beforeAll(async () => {
  servers = await startLoopbackServers(handler);
  ({ base, tlsBase, caPem } = servers);
});

afterAll(() => servers.close());

const engine = () =>
  new Regolith().addModule('p.rego', `package p
fetched := http.send(input.req)
body := fetched.body
status := fetched.status_code
allow if input.user == "alice"
`);

describe('http.send in the evaluator', () => {
  it('a decision waiting on a slow server does not block other decisions', async () => {
    const r = engine();
    const slow = r.prepare('data.p.body').evaluateAsync({ input: { req: { method: 'GET', url: base + '/hold' } } });
    let slowDone = false;
    void slow.then(() => (slowDone = true));
    while (!release) await new Promise((res) => setTimeout(res, 5));
    // While the slow decision waits: synchronous decisions and other http.send decisions finish.
    for (let i = 0; i < 20; i++) expect(r.prepare('data.p.allow').evaluate({ input: { user: 'alice' } })[0]!.expressions[0]!.value).toBe(true);
    const fast = await Promise.all(
      [1, 2, 3].map((i) => r.prepare('data.p.status').evaluateAsync({ input: { req: { method: 'GET', url: `${base}/fast${i}` } } })),
    );
    expect(fast.map((x) => x[0]!.expressions[0]!.value)).toEqual([200, 200, 200]);
    expect(slowDone).toBe(false);
    release!();
    expect((await slow)[0]!.expressions[0]!.value).toEqual({ late: true });
  });

  it('times out: undefined without strict built-in errors, eval_builtin_error with them', async () => {
    const req = { method: 'GET', url: base + '/forever', timeout: '100ms' };
    const r = engine();
    const t0 = Date.now();
    expect(await r.prepare('data.p.status').evaluateAsync({ input: { req } })).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(2000);
    const err = await r.prepare('data.p.status').evaluateAsync({ input: { req }, strictBuiltinErrors: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegoEvalError);
    expect((err as RegoEvalError).code).toBe('eval_builtin_error');
    expect((err as Error).message).toContain(`http.send: Get ${base}/forever: request timed out`);
  });

  it('returns error statuses as responses, and network errors as error objects with raise_error false', async () => {
    const r = engine();
    const [tea] = await r.prepare('data.p.fetched').evaluateAsync({ input: { req: { method: 'GET', url: base + '/teapot' } } });
    const v = tea!.expressions[0]!.value as Record<string, unknown>;
    expect(v.status_code).toBe(418);
    // Go keeps the status line as the server sent it (Node's reason phrase).
    expect(v.status).toBe("418 I'm a Teapot");
    expect(v.body).toEqual({ short: 'and stout' });
    const [down] = await r.prepare('data.p.fetched').evaluateAsync({
      input: { req: { method: 'GET', url: 'http://127.0.0.1:1/x', raise_error: false } },
    });
    const d = down!.expressions[0]!.value as Record<string, Record<string, unknown>>;
    expect(d.status_code).toBe(0);
    expect(d.error!.code).toBe('eval_http_send_network_error');
    expect(d.error!.message).toMatch(/connection refused/);
  });

  it('force_cache keeps an HTTPS response across queries for force_cache_duration_seconds', async () => {
    clearHttpSendCache();
    const r = engine();
    const req = { method: 'GET', url: tlsBase + '/counted', tls_ca_cert: caPem, force_cache: true, force_cache_duration_seconds: 60 };
    const a = await r.prepare('data.p.body').evaluateAsync({ input: { req } });
    const b = await r.prepare('data.p.body').evaluateAsync({ input: { req } });
    expect(a[0]!.expressions[0]!.value).toEqual({ n: 1 });
    expect(b[0]!.expressions[0]!.value).toEqual({ n: 1 });
    expect(counts.get('/counted')).toBe(1);
    // Without caching every query asks again.
    const plain = { method: 'GET', url: tlsBase + '/counted', tls_ca_cert: caPem };
    const c = await r.prepare('data.p.body').evaluateAsync({ input: { req: plain } });
    expect(c[0]!.expressions[0]!.value).toEqual({ n: 2 });
  });
});
