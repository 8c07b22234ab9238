// The decision fast path (plain POST /v1/data/<path>, answered from Node's request and
// response without Hono) against the Hono route for the same request: `?` sends a request
// through Hono with no parameter set, so both answers must be identical, headers
// included, for successes, undefined documents, bad bodies, YAML and gzip. Both are
// observed in http_request_duration_seconds as handler "v1/data".

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { req, start, type TestServer } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await start({ limits: { maxLength: 4096, gzipMaxLength: 1 << 20, maxDepth: 50 }, gzip: { minLength: 100 } });
  s.engine.virtual.set('rules/echo', (input) => input);
  s.engine.virtual.set('rules/undef', () => undefined);
});
afterAll(() => s.close());

async function both(path: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const fast = await req(s, 'POST', path, body, headers);
  const hono = await req(s, 'POST', path + '?', body, headers);
  return { fast, hono };
}

const shown = (r: Awaited<ReturnType<typeof req>>) => ({
  status: r.status,
  text: r.text,
  type: r.headers.get('content-type'),
  vary: r.headers.get('vary'),
  encoding: r.headers.get('content-encoding'),
});

describe('decision fast path', () => {
  const cases: [string, string, string | Buffer, Record<string, string>?][] = [
    ['a decision', '/v1/data/rules/echo', '{"input":{"user":"alice","n":12345678901234567890}}'],
    ['an undefined decision', '/v1/data/rules/undef', '{"input":{}}'],
    ['no input key', '/v1/data/rules/echo', '{}'],
    ['an empty body', '/v1/data/rules/echo', ''],
    ['malformed JSON', '/v1/data/rules/echo', '{"input":'],
    ['a body that is not an object', '/v1/data/rules/echo', '[1]'],
    ['nesting past the limit', '/v1/data/rules/echo', '{"input":' + '['.repeat(60) + ']'.repeat(60) + '}'],
    ['a body over the size limit', '/v1/data/rules/echo', '{"input":"' + 'x'.repeat(5000) + '"}'],
    ['a YAML body', '/v1/data/rules/echo', 'input:\n  user: bob\n', { 'content-type': 'application/x-yaml' }],
    ['a gzip body', '/v1/data/rules/echo', gzipSync('{"input":{"user":"carol"}}'), { 'content-encoding': 'gzip' }],
    ['a gzip response', '/v1/data/rules/echo', JSON.stringify({ input: { pad: 'y'.repeat(300) } }), { 'accept-encoding': 'gzip' }],
    ['the data root', '/v1/data', '{"input":1}'],
    ['an integer path segment', '/v1/data/rules/echo/0', '{"input":[7]}'],
  ];
  for (const [what, path, body, headers] of cases) {
    it(`answers ${what} as the Hono route does`, async () => {
      const { fast, hono } = await both(path, body, headers);
      expect(shown(fast)).toEqual(shown(hono));
    });
  }

  it('gives the decision and the api_usage_warning shapes', async () => {
    const ok = await req(s, 'POST', '/v1/data/rules/echo', '{"input":{"a":1}}');
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('{"result":{"a":1}}\n');
    const warn = await req(s, 'POST', '/v1/data/rules/echo', '{}');
    expect(warn.json).toEqual({ warning: { code: 'api_usage_warning', message: "'input' key missing from the request" } });
    const bad = await req(s, 'POST', '/v1/data/rules/echo', '{"input":');
    expect(bad.status).toBe(400);
    expect((bad.json as { code: string }).code).toBe('invalid_parameter');
  });

  it('records both paths in http_request_duration_seconds', async () => {
    const before = await metricCount();
    await req(s, 'POST', '/v1/data/rules/echo', '{"input":1}');
    await req(s, 'POST', '/v1/data/rules/echo?', '{"input":1}');
    expect(await metricCount()).toBe(before + 2);
  });
});

async function metricCount(): Promise<number> {
  const text = (await req(s, 'GET', '/metrics')).text;
  const m = /http_request_duration_seconds_count\{code="200",handler="v1\/data",method="post"\} (\d+)/.exec(text);
  return m ? Number(m[1]) : 0;
}
