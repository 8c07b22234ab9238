// The pipelined wrk script's check (bench/lib/wrk.ts), which the --workers figures rest on:
// every answer is compared with the one expected at its place in the pipeline. A raw TCP
// server stands in for Node's HTTP server so that it can answer out of order, and close a
// connection in the middle of a batch as the workers do when they rebalance.

import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runWrk, wrkScript, type LoadRequest } from '../../../bench/lib/wrk.js';

const hasWrk = ((): boolean => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (e) {
    // wrk --version exits 1 after printing its version
    return (e as { status?: number }).status === 1;
  }
})();

type Mode = 'in order' | 'swapped' | 'closing';

/** Answers each request with its body and a newline; 'swapped' answers each two in reverse order; 'closing' closes after every 7th answer. */
function rawServer(mode: Mode): Promise<{ url: string; server: Server }> {
  const server = createServer((sock) => {
    let buf = '';
    let answered = 0;
    const reply = (body: string, close: boolean): void => {
      const text = `${body}\n`;
      sock.write(`HTTP/1.1 200 OK\r\ncontent-length: ${text.length}\r\n${close ? 'connection: close\r\n' : ''}\r\n${text}`);
    };
    sock.on('error', () => {});
    sock.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      const bodies: string[] = [];
      for (;;) {
        const h = buf.indexOf('\r\n\r\n');
        if (h < 0) break;
        const len = Number(/content-length: *(\d+)/i.exec(buf.slice(0, h))?.[1] ?? 0);
        if (buf.length < h + 4 + len) break;
        bodies.push(buf.slice(h + 4, h + 4 + len));
        buf = buf.slice(h + 4 + len);
      }
      if (mode === 'swapped') {
        // the script sends two per write: both arrive before either is answered
        for (let i = 0; i + 1 < bodies.length; i += 2) {
          reply(bodies[i + 1]!, false);
          reply(bodies[i]!, false);
        }
        return;
      }
      for (const b of bodies) {
        const close = mode === 'closing' && ++answered % 7 === 0;
        reply(b, close);
        if (close) return void sock.end(); // the rest of the batch is never answered
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server })));
}

const requests: LoadRequest[] = [0, 1, 2, 3, 4].map((i) => ({ path: '/', body: `{"i":${i}}`, expect: `{"i":${i}}\n` }));

describe.skipIf(!hasWrk)('wrk script: pipelined answers checked in order', () => {
  let server: Server | undefined;
  afterEach(() => void server?.close());

  it('finds nothing wrong when every answer is in its place', async () => {
    const s = await rawServer('in order');
    server = s.server;
    const r = await runWrk(s.url, wrkScript(requests, {}, { pipeline: 2, check: true }), 1, 2);
    expect(r.requests).toBeGreaterThan(0);
    expect(r.bad).toBe(0);
  });

  it('counts every answer given in the wrong place', async () => {
    const s = await rawServer('swapped');
    server = s.server;
    const r = await runWrk(s.url, wrkScript(requests, {}, { pipeline: 2, check: true }), 1, 2);
    expect(r.requests).toBeGreaterThan(0);
    expect(r.bad).toBe(r.requests);
  });

  it('starts again at the next batch after a connection closed in the middle of one', async () => {
    const s = await rawServer('closing');
    server = s.server;
    const r = await runWrk(s.url, wrkScript(requests, {}, { pipeline: 3, check: true }), 1, 2);
    expect(r.requests).toBeGreaterThan(7);
    expect(r.bad).toBe(0);
  });

  it('waits delayMs before each write: the rate no longer depends on how fast the server answers', async () => {
    const s = await rawServer('in order');
    server = s.server;
    const r = await runWrk(s.url, wrkScript(requests, {}, { pipeline: 1, check: false, delayMs: 100 }), 1, 2);
    // 2 connections, 100 ms before each request: about 20 in the second, not thousands
    expect(r.requests).toBeGreaterThan(4);
    expect(r.requests).toBeLessThanOrEqual(26);
    expect(() => wrkScript(requests, {}, { pipeline: 1, check: false, delayMs: 0 })).toThrow(/positive/);
  });

  it('refuses a checking script without the expected answers', () => {
    expect(() => wrkScript([{ path: '/', body: '{}' }], {}, { pipeline: 1, check: true })).toThrow(/expected answer/);
  });
});
