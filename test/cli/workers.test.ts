// `regolith run --server --workers 2`, the built binary as users run it: both workers serve
// the one address; concurrent Data API writes are acknowledged only when every worker has
// them; a bundle revision switches on every worker together (a client never sees the old
// revision after it saw the new one); a worker killed under load is replaced while the other
// serves (only requests in flight on the killed one fail); /v1/status, /metrics and the
// decision logs describe the whole group, with unique decision ids.

import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './helpers.js';
import { archive, gunzipJSON, httpServer, serveBundles, waitFor, type BundleFiles, type TestHTTPServer } from '../loopback.js';
import { startRun, type RunProcess } from '../runtime/run-process.js';

let dir: string;
let run: RunProcess;
let bundles: TestHTTPServer;
let collector: TestHTTPServer & { events: Record<string, any>[] };
const files: BundleFiles = {};
const policy = (rev: string) => ({ 'authz/p.rego': `package authz\n\nrevision := "${rev}"\n\nallow if input.user in data.kv.admins\n` });

/** One request on a connection of its own, so that the cluster hands it to either worker. */
function request(method: string, path: string, body?: unknown, raw = false): Promise<{ status: number; body: any }> {
  const u = new URL(run.url + path);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method, agent: false, headers: { connection: 'close', 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : raw ? String(body) : JSON.stringify(body));
  });
}

const workerPids = (): number[] =>
  execFileSync('pgrep', ['-P', String(run.child.pid)], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(Number);

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'regolith-workers-'));
  files['/bundles/authz.tar.gz'] = { body: await archive({ revision: 'r1', roots: ['authz'], modules: policy('r1') }), etag: '"r1"' };
  bundles = await httpServer(serveBundles(files));
  collector = Object.assign(await httpServer(() => {}), { events: [] as Record<string, any>[] });
  collector.handler = (req, res) => {
    if (req.url === '/logs') collector.events.push(...(gunzipJSON(req.body) as Record<string, any>[]));
    res.statusCode = req.url === '/logs' ? 204 : 200;
    res.end();
  };
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      services: { bundles: { url: bundles.url }, collector: { url: collector.url } },
      bundles: { authz: { service: 'bundles', resource: 'bundles/authz.tar.gz', polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } },
      decision_logs: { service: 'collector', reporting: { min_delay_seconds: 1, max_delay_seconds: 1 } },
      status: { service: 'collector' },
    }),
  );
  writeFileSync(join(dir, 'data.json'), JSON.stringify({ kv: { admins: ['alice'] } }));
  run = await startRun(['--workers', '2', '-c', join(dir, 'config.json'), join(dir, 'data.json')]);
  await waitFor('both workers ready with the bundle', async () => (await request('GET', '/health?bundles&plugins')).status === 200 && workerPids().length === 2, 30_000);
}, 90_000);

afterAll(async () => {
  await run?.kill('SIGTERM');
  await bundles?.close();
  await collector?.close();
});

describe('regolith run --server --workers 2', () => {
  it('serves from two worker processes on one address', async () => {
    expect(workerPids()).toHaveLength(2);
    expect((await request('POST', '/v1/data/authz/allow', { input: { user: 'alice' } })).body.result).toBe(true);
  });

  it('acknowledges a write only when every worker has it, under concurrent writes', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    const puts = await Promise.all(keys.map((k, i) => request('PUT', `/v1/data/kv/items/${k}`, i)));
    expect(puts.map((p) => p.status)).toEqual(keys.map(() => 204));
    // every read, whichever worker answers, has every acknowledged write
    for (let i = 0; i < 20; i++) expect(Object.keys((await request('GET', '/v1/data/kv/items')).body.result).length).toBe(40);
    // read your write, on any worker, right after the acknowledgement
    for (let i = 0; i < 10; i++) {
      expect((await request('PUT', `/v1/data/kv/ryw`, i)).status).toBe(204);
      expect((await request('GET', '/v1/data/kv/ryw')).body.result).toBe(i);
      expect((await request('GET', '/v1/data/kv/ryw')).body.result).toBe(i);
    }
    // a policy written through one worker decides on all of them
    expect((await request('PUT', '/v1/policies/extra', 'package extra\n\nanswer := 42\n', true)).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await request('GET', '/v1/data/extra/answer')).body.result).toBe(42);
    // a write the store refuses is refused to the client, from the primary's answer
    const bad = await request('PATCH', '/v1/data/kv', [{ op: 'replace', path: '/nope/deeper', value: 1 }]);
    expect(bad.status).toBe(404);
  }, 60_000);

  it('switches every worker to a new bundle revision together', async () => {
    const seen: string[] = [];
    let stop = false;
    const reader = (async () => {
      while (!stop) seen.push((await request('GET', '/v1/data/authz/revision')).body.result);
    })();
    await new Promise((r) => setTimeout(r, 200));
    files['/bundles/authz.tar.gz'] = { body: await archive({ revision: 'r2', roots: ['authz'], modules: policy('r2') }), etag: '"r2"' };
    await waitFor('r2 everywhere', () => seen.slice(-10).length === 10 && seen.slice(-10).every((r) => r === 'r2'), 20_000);
    stop = true;
    await reader;
    const first = seen.indexOf('r2');
    expect(first).toBeGreaterThan(0);
    expect(seen.slice(first).filter((r) => r !== 'r2')).toEqual([]);
    const st = (await request('GET', '/v1/status')).body.result;
    expect(st.bundles.authz.active_revision).toBe('r2');
  }, 60_000);

  it('replaces a worker killed under load while the other serves; only requests in flight on it fail', async () => {
    const before = workerPids();
    let ok = 0;
    let okAfterKill = 0;
    let killed = false;
    let failed = 0;
    let stop = false;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const one = () =>
      new Promise<void>((resolve) => {
        const u = new URL(run.url + '/v1/data/authz/allow');
        const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) {
              ok++;
              if (killed) okAfterKill++;
            } else failed++;
            resolve();
          });
        });
        req.on('error', () => {
          failed++;
          resolve();
        });
        // a request that hangs counts as failed (and cannot hold the test until its timeout)
        req.setTimeout(5000, () => req.destroy(new Error('timed out')));
        req.end(JSON.stringify({ input: { user: 'alice' } }));
      });
    const loops = Array.from({ length: 4 }, async () => {
      while (!stop) await one();
    });
    // counted answers, not wall-clock time: a loaded machine answers fewer requests a second
    await waitFor('requests answered under load', () => ok >= 20, 20_000);
    process.kill(before[0]!, 'SIGKILL');
    killed = true;
    await waitFor('50 requests answered after the kill', () => okAfterKill >= 50, 30_000);
    stop = true;
    await Promise.all(loops);
    agent.destroy();
    console.log(`workers: killed one under load: ${ok} requests answered, ${failed} failed (in flight on the killed worker)`);
    expect(failed).toBeLessThanOrEqual(4);
    await waitFor('a replacement worker', () => workerPids().length === 2 && !workerPids().includes(before[0]!), 20_000);
    // the replacement got the whole state: written data, policies and the bundle revision
    for (let i = 0; i < 10; i++) {
      expect(Object.keys((await request('GET', '/v1/data/kv/items')).body.result).length).toBe(40);
      expect((await request('GET', '/v1/data/authz/revision')).body.result).toBe('r2');
      expect((await request('GET', '/v1/data/extra/answer')).body.result).toBe(42);
    }
  }, 60_000);

  it('describes the group: /metrics counts every worker, decisions reach the one collector once each', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await request('POST', '/v1/data/authz/allow', { input: { user: 'bob' } })).body.decision_id);
    expect(new Set(ids).size).toBe(30);
    await waitFor('the decisions at the collector', () => ids.every((id) => collector.events.some((e) => e['decision_id'] === id)), 15_000);
    const logged = collector.events.map((e) => e['decision_id']);
    expect(new Set(logged).size).toBe(logged.length);
    const metrics = await new Promise<string>((resolve) => http.get(run.url + '/metrics', (res) => {
      let t = '';
      res.on('data', (c: Buffer) => (t += c.toString()));
      res.on('end', () => resolve(t));
    }));
    const posts = [...metrics.matchAll(/http_request_duration_seconds_count\{code="200",handler="v1\/data",method="post"\} (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
    expect(posts).toBeGreaterThanOrEqual(30);
  }, 60_000);

  it('logs what each decision saw, whichever worker made it: a body as the client wrote it, a GET input, a large body read in part', async () => {
    const big = { user: 'bob', items: Array.from({ length: 120 }, (_, i) => ({ id: `item-${i}`, n: i })) };
    expect(JSON.stringify({ input: big }).length).toBeGreaterThan(2000);
    const cases = [
      { method: 'POST', path: '/v1/data/authz/allow', body: '{"input": {"z": 1, "user": "alice", "a": "\\u00e9"}}', input: { z: 1, user: 'alice', a: 'é' } },
      { method: 'GET', path: '/v1/data/authz/allow?input=' + encodeURIComponent('{"user":"carol","b":[1,2]}'), body: undefined, input: { user: 'carol', b: [1, 2] } },
      { method: 'POST', path: '/v1/data/authz/allow', body: JSON.stringify({ input: big }), input: big },
    ];
    const made: { id: string; input: unknown; result: unknown }[] = [];
    for (let i = 0; i < 4; i++) {
      for (const c of cases) {
        const r = await request(c.method, c.path, c.body, true);
        expect(r.status).toBe(200);
        made.push({ id: r.body.decision_id, input: c.input, result: r.body.result });
      }
    }
    const event = (id: string) => collector.events.find((e) => e['decision_id'] === id);
    await waitFor('the decisions at the collector', () => made.every((m) => event(m.id)), 15_000);
    for (const m of made) {
      const e = event(m.id)!;
      expect(e['input']).toEqual(m.input);
      expect(e['result']).toEqual(m.result);
      expect(e['path']).toBe('authz/allow');
    }
  }, 60_000);

  it('masks the events of decisions from either worker in the primary, with the mask policy reading their result', async () => {
    const mask = 'package system.log\n\nmask contains "/input/secret" if input.result == true\n';
    expect((await request('PUT', '/v1/policies/logmask', mask, true)).status).toBe(200);
    try {
      const made: { id: string; user: string }[] = [];
      for (let i = 0; i < 6; i++) {
        for (const user of ['alice', 'bob']) {
          const r = await request('POST', '/v1/data/authz/allow', { input: { user, secret: 's3' } });
          expect(r.status).toBe(200);
          made.push({ id: r.body.decision_id, user });
        }
      }
      const event = (id: string) => collector.events.find((e) => e['decision_id'] === id);
      await waitFor('the decisions at the collector', () => made.every((m) => event(m.id)), 15_000);
      for (const m of made) {
        const e = event(m.id)!;
        // alice is allowed: the result (true) makes the mask erase her secret; bob's is undefined
        if (m.user === 'alice') expect([e['input'], e['result'], e['erased']]).toEqual([{ user: 'alice' }, true, ['/input/secret']]);
        else expect([e['input'], e['result'], e['erased']]).toEqual([{ user: 'bob', secret: 's3' }, undefined, undefined]);
      }
    } finally {
      expect((await request('DELETE', '/v1/policies/logmask')).status).toBe(200);
    }
  }, 60_000);

  it('serves the web console from the workers: pages, playground, the live decision stream fed by the primary, impact from the primary', async () => {
    expect((await fetch(`${run.url}/ui`)).status).toBe(200);
    const ev = await request('POST', '/ui/api/eval', { modules: { 'a.rego': 'package a\n\nx := 2 * 21\n' }, query: 'data.a.x' });
    expect(ev.body.result[0].expressions[0].value).toBe(42);
    // the stream, on whichever worker: decisions made on either worker arrive
    const ctrl = new AbortController();
    const res = await fetch(`${run.url}/ui/api/decisions/stream`, { signal: ctrl.signal });
    const reader = res.body!.getReader();
    // the worker asks the primary for the feed when the stream subscribes: let that arrive
    await new Promise((r) => setTimeout(r, 100));
    let text = '';
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await request('POST', '/v1/data/authz/allow', { input: { user: 'carol' } })).body.decision_id);
    const deadline = Date.now() + 10_000;
    while (!ids.every((id) => text.includes(id)) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString();
    }
    ctrl.abort();
    for (const id of ids) expect(text).toContain(id);
    expect(text).toContain('event: decision');
    const impact = await request('POST', '/ui/api/impact', { candidate: { modules: { 'authz/p.rego': 'package authz\n\nrevision := "r2"\n\nallow := false\n' } } });
    expect(impact.status, JSON.stringify(impact.body)).toBe(200);
    expect(impact.body.total).toBeGreaterThan(0);
    expect(impact.body.by_path.find((p: { path: string }) => p.path === 'authz/allow').allow_to_deny).toBeGreaterThan(0);
  }, 60_000);
});
