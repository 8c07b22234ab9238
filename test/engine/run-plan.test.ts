// runPlan tries a decision synchronously and, when a built-in waits on I/O, runs it again
// on the async path. The first try has already sent its http.send request: the second
// must take that request over, not send it again, and lines the first try printed must
// not be printed twice.

import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';
import { toJS } from '../../src/value/index.js';

let server: Server;
let url = '';
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

const policy = `package t

r := body if {
  print("before", input.n)
  body := http.send({"method": "GET", "url": concat("", [input.url, "/a/", format_int(input.n, 10)])}).body
  print("after", body.path)
}

two := [a, b] if {
  a := http.send({"method": "GET", "url": concat("", [input.url, "/first"])}).body.path
  b := http.send({"method": "GET", "url": concat("", [input.url, "/second"])}).body.path
}
`;

function engine(printed: string[]) {
  const r = new Regolith({ print: (m) => printed.push(m) });
  r.addModule('t.rego', policy);
  return r;
}

describe('runPlan over a built-in that waits on I/O', () => {
  it('sends each http.send request once and prints each line once', async () => {
    const printed: string[] = [];
    const q = engine(printed).prepare('data.t.r');
    hits = 0;
    const out = await q.evaluateRawMaybeAsync({ input: { url, n: 7 } });
    expect(out.map((r) => toJS(r.expressions[0]!.value))).toEqual([{ path: '/a/7' }]);
    expect(hits).toBe(1);
    expect(printed).toEqual(['before 7', 'after /a/7']);
  });

  it('sends each of two requests in a row once', async () => {
    const q = engine([]).prepare('data.t.two');
    hits = 0;
    const out = await q.evaluateRawMaybeAsync({ input: { url } });
    expect(out.map((r) => toJS(r.expressions[0]!.value))).toEqual([['/first', '/second']]);
    expect(hits).toBe(2);
  });
});
