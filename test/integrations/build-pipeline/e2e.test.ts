// The build pipeline adapter and its webhook end to end: a real server reading a stand-in
// pipeline API (v1.1) over loopback into data.pipeline, and deciding job notifications
// with the shipped deploy policy, over data.pipeline and data.insights, with every
// decision shipped to a collector that goes down for a while.

import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gunzipJSON, httpServer, waitFor, type TestHTTPServer } from '../../loopback.js';
import { serve, shippedPolicy, type Served } from '../../plugins/adapters/harness.js';
import { addVersion, insightsStandIn, type InsightsStandIn } from '../package-insights/stand-in.js';
import { followed, job, pipelineStandIn, type PipelineStandIn } from './stand-in.js';

let ci: PipelineStandIn;
let insights: InsightsStandIn;
let running: Served[] = [];
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  ci = await pipelineStandIn('ci-secret');
  insights = await insightsStandIn();
  ci.projects = [followed('acme', 'api', ['main', 'feature/x']), followed('acme', 'web', ['main'])];
  const api: Record<string, any>[] = [];
  for (let n = 1; n <= 250; n++) api.push(job('acme', 'api', n, n % 5 === 0 ? 'feature/x' : 'main', n % 7 === 0 ? { outcome: 'failed', status: 'failed', failed: true } : {}));
  api.push(job('acme', 'api', 251, 'main', { lifecycle: 'running', outcome: null, status: 'running' }));
  ci.jobs.set('github/acme/api', api);
  ci.jobs.set('github/acme/web', [job('acme', 'web', 1, 'main')]);
  ci.tests.set('github/acme/api/249', [{ message: null, file: 'a_test.js', source: 'mocha', run_time: 0.5, result: 'success', name: 'works', classname: 'api' }]);
});
afterEach(async () => {
  for (const s of running) await s.stop();
  running = [];
  for (const c of closers.splice(0)) await c();
  await ci.close();
  await insights.close();
});

function pipelineConfig(adapter: Record<string, unknown> = {}, token = 'ci-secret'): Record<string, unknown> {
  return {
    // 25 configured seconds = 500 ms here: a shorter deadline times out under a loaded machine, and the retry counts as an extra request
    services: { ci: { url: ci.url, credentials: { bearer: { token } }, response_header_timeout_seconds: 25 } },
    adapters: { pipeline: { type: 'build_pipeline', service: 'ci', trigger: 'manual', retry: { max_retries: 1 }, ...adapter } },
  };
}

async function start(cfg: Record<string, unknown>, policies: Record<string, string> = {}, server: Parameters<typeof serve>[2] = {}): Promise<Served> {
  const s = await serve(cfg, policies, server);
  running.push(s);
  return s;
}

describe('build pipeline adapter', () => {
  it('serves followed projects, recent jobs per branch over several pages, and test metadata', async () => {
    const s = await start(pipelineConfig({ jobs: { limit: 100, pages: 3 }, tests: true }));
    await s.manager.trigger();
    const doc = (await s.get('/v1/data/pipeline')).body.result;
    expect(Object.keys(doc.projects).sort()).toEqual(['github/acme/api', 'github/acme/web']);
    expect(doc.projects['github/acme/api'].reponame).toBe('api');
    const main = doc.jobs['github/acme/api'].main as Record<string, any>[];
    // 201 jobs on main (every fifth is on feature/x): pages at offset 0, 100, 200
    expect(main).toHaveLength(201);
    expect(main[0]!.build_num).toBe(251);
    expect(main.map((j) => j.build_num)).toEqual([...main.map((j) => j.build_num)].sort((a, b) => b - a));
    expect(doc.jobs['github/acme/api']['feature/x']).toHaveLength(50);
    expect(doc.jobs['github/acme/web'].main).toHaveLength(1);
    expect(doc.tests['github/acme/api']).toEqual({ '249': ci.tests.get('github/acme/api/249') });
    // the branch is URL-encoded in the path; the offsets are the documented paging
    const mainPages = ci.requests.filter((r) => r.url.startsWith('/api/v1.1/project/github/acme/api/tree/main?'));
    expect(mainPages.map((r) => new URL(r.url, 'http://x').searchParams.get('offset'))).toEqual(['0', '100', '200']);
    expect(ci.requests.some((r) => r.url.includes('/tree/feature%2Fx?'))).toBe(true);
    // the token in the Ci-Token header on every request, never in the query; JSON always asked for
    expect(new Set(ci.auth)).toEqual(new Set(['header']));
    expect(ci.requests.every((r) => !r.url.includes('ci-token') && r.headers['accept'] === 'application/json' && r.headers['authorization'] === undefined)).toBe(true);
    expect((await s.get('/v1/status')).body.result.adapters.pipeline.active_revision).toMatch(/^[0-9a-f]{16}$/);
    expect((await s.get('/health?bundles&plugins')).status).toBe(200);
    // the project list carries an ETag: the next read revalidates it and the 304 keeps the copy
    await s.manager.trigger();
    const projectReads = ci.requests.filter((r) => r.url === '/api/v1.1/projects');
    expect(projectReads).toHaveLength(2);
    expect(projectReads[1]!.headers['if-none-match']).toMatch(/^"[0-9a-f]{12}"$/);
    expect(s.manager.adapters!.data.get('pipeline')!.http.stats.notModified).toBe(1);
    expect((await s.get('/v1/data/pipeline')).body.result).toEqual(doc);
  });

  it('asks for shallow, filtered jobs of the configured projects and branches only', async () => {
    const s = await start(pipelineConfig({ projects: [{ vcs_type: 'github', username: 'acme', project: 'api', branches: ['main'] }], jobs: { limit: 10, filter: 'failed', shallow: true } }));
    await s.manager.trigger();
    const doc = (await s.get('/v1/data/pipeline')).body.result;
    expect(Object.keys(doc.jobs)).toEqual(['github/acme/api']);
    const jobs = doc.jobs['github/acme/api'].main as Record<string, any>[];
    expect(jobs).toHaveLength(10);
    expect(jobs.every((j) => j.outcome === 'failed' && !('user' in j) && !('workflows' in j))).toBe(true);
    const r = ci.requests.find((x) => x.url.includes('/tree/main'))!;
    expect(Object.fromEntries(new URL(r.url, 'http://x').searchParams)).toEqual({ limit: '10', offset: '0', filter: 'failed', shallow: 'true' });
  });

  it('a wrong token is an error naming the 401, not retried, and the last good data stays', async () => {
    const s = await start(pipelineConfig());
    await s.manager.trigger();
    const good = (await s.get('/v1/data/pipeline')).body.result;
    ci.token = 'rotated';
    const before = ci.requests.length;
    await s.manager.trigger();
    const st = (await s.get('/v1/status')).body.result.adapters.pipeline;
    expect(st).toMatchObject({ code: 'adapter_error', http_code: '401' });
    expect(st.message).toMatch(/You must log in first/);
    expect(ci.requests.length - before).toBe(1);
    expect((await s.get('/v1/data/pipeline')).body.result).toEqual(good);
  });

  it('an EDN answer is a clear error, never data; 429 and 5xx are retried', async () => {
    const s = await start(pipelineConfig({ retry: { max_retries: 3 } }));
    await s.manager.trigger();
    const good = (await s.get('/v1/data/pipeline')).body.result;
    ci.faults.push({ edn: true });
    await s.manager.trigger();
    const st = (await s.get('/v1/status')).body.result.adapters.pipeline;
    expect(st.message).toMatch(/an EDN body \(application\/edn\), not JSON/);
    expect((await s.get('/v1/data/pipeline')).body.result).toEqual(good);
    ci.faults.push({ status: 429, retryAfter: '1' }, { status: 503 }, { hang: true });
    ci.jobs.get('github/acme/web')!.push(job('acme', 'web', 2, 'main'));
    await s.manager.trigger();
    expect((await s.get('/v1/status')).body.result.adapters.pipeline.code).toBeUndefined();
    const web = (await s.get('/v1/data/pipeline')).body.result.jobs['github/acme/web'].main;
    expect(web.map((j: any) => j.build_num)).toEqual([2, 1]);
  });

  it('reads once per trigger: a refresh does not wake the polling loop into another read, concurrent triggers share one', async () => {
    const s = await start(pipelineConfig({ trigger: 'periodic', polling: { min_delay_seconds: 1000, max_delay_seconds: 1000 }, tests: true }));
    const projectReads = () => ci.requests.filter((r) => r.url === '/api/v1.1/projects').length;
    const testReads = () => ci.requests.filter((r) => r.url.endsWith('/tests')).length;
    await waitFor('the first read', () => s.manager.adapters!.data.get('pipeline')!.status().state === 'OK');
    expect(projectReads()).toBe(1);
    const tests0 = testReads();
    const a = s.manager.adapters!.data.get('pipeline')!;
    await a.refresh();
    await new Promise((r) => setTimeout(r, 200)); // a woken polling loop would read now
    expect(projectReads()).toBe(2);
    // five triggers at once: one read, and one more after it for those that came during it
    await Promise.all([a.refresh(), a.refresh(), a.refresh(), a.refresh(), a.refresh()]);
    await new Promise((r) => setTimeout(r, 200));
    expect(projectReads()).toBe(4);
    // finished jobs' tests were read on the first read only (they do not change)
    expect(testReads()).toBe(tests0);
  });

  it('a Retry-After of 120 s defers the read: no failure, the last good data stays, nothing is sent before it ends', async () => {
    const s = await start(pipelineConfig({ retry: { max_retries: 3, max_delay_seconds: 60 } }));
    await s.manager.trigger();
    const good = (await s.get('/v1/data/pipeline')).body.result;
    ci.faults.push({ status: 429, retryAfter: '120' });
    const before = ci.requests.length;
    await s.manager.trigger();
    let st = (await s.get('/v1/status')).body.result.adapters.pipeline;
    expect(st.code).toBeUndefined();
    expect(st.errors ?? []).toEqual([]);
    expect((await s.get('/v1/data/pipeline')).body.result).toEqual(good);
    expect(ci.requests.length - before).toBe(1);
    // a trigger within the 120 s (2.4 s here) sends nothing to the throttled resource
    await s.manager.trigger();
    expect(ci.requests.length - before).toBe(1);
    // after it, the read goes through
    ci.jobs.get('github/acme/web')!.push(job('acme', 'web', 2, 'main'));
    await new Promise((r) => setTimeout(r, 120 * 20 + 50));
    await s.manager.trigger();
    st = (await s.get('/v1/status')).body.result.adapters.pipeline;
    expect(st.code).toBeUndefined();
    expect((await s.get('/v1/data/pipeline')).body.result.jobs['github/acme/web'].main.map((j: any) => j.build_num)).toEqual([2, 1]);
  });

  it('a configured project without branches gets its recent jobs from the project summary', async () => {
    const s = await start(pipelineConfig({ projects: [{ vcs_type: 'github', username: 'acme', project: 'web' }] }));
    ci.projects = [];
    await s.manager.trigger();
    const doc = (await s.get('/v1/data/pipeline')).body.result;
    expect(doc.jobs['github/acme/web']).toEqual({ '': [expect.objectContaining({ build_num: 1 })] });
    expect(ci.requests.some((r) => r.url.startsWith('/api/v1.1/project/github/acme/web?'))).toBe(true);
  });

  it('limit over the documented maximum is refused in the configuration', async () => {
    await expect(serve(pipelineConfig({ jobs: { limit: 101 } }))).rejects.toThrow(/adapters\.pipeline\.jobs\.limit: must be between 1 and 100/);
  });
});

/** A decision-log collector that can be switched off (503). */
async function collector(): Promise<TestHTTPServer & { events: Record<string, any>[]; up: boolean }> {
  const c = Object.assign(await httpServer(() => {}), { events: [] as Record<string, any>[], up: true });
  c.handler = (req, res) => {
    if (!c.up) {
      res.statusCode = 503;
      return void res.end();
    }
    c.events.push(...(gunzipJSON(req.body) as Record<string, any>[]));
    res.statusCode = 204;
    res.end();
  };
  closers.push(() => c.close());
  return c;
}

describe('pipeline webhook', () => {
  async function deployServer(server: Parameters<typeof serve>[2] = {}, extraPolicies: Record<string, string> = {}, deploy: Record<string, unknown> = {}) {
    const logs = await collector();
    addVersion(insights, 'NPM', 'left-pad', '1.3.0', { licenses: ['MIT'] });
    const cfg = {
      // no header deadline (the default 10 s is 200 ms here, which a loaded machine misses: a read retried counts twice)
      services: {
        ci: { url: ci.url, credentials: { bearer: { token: 'ci-secret' } }, response_header_timeout_seconds: 0 },
        insights: { url: insights.url, response_header_timeout_seconds: 0 },
        logs: { url: logs.url },
      },
      adapters: {
        pipeline: { type: 'build_pipeline', service: 'ci', trigger: 'manual', jobs: { limit: 5 }, tests: true },
        insights: { type: 'package_insights', service: 'insights', trigger: 'manual', packages: ['NPM/left-pad@1.3.0'] },
        deploy: { type: 'pipeline_webhook', rule: 'data.regolith.pipeline.deploy.decision', token: 'hook-secret', refresh: ['pipeline'], ...deploy },
      },
      decision_logs: { service: 'logs', reporting: { min_delay_seconds: 1, max_delay_seconds: 1 } },
    };
    const s = await start(cfg, { 'supply_chain.rego': shippedPolicy('supply-chain/supply_chain.rego'), 'deploy.rego': shippedPolicy('pipeline-deploy/deploy.rego'), ...extraPolicies }, server);
    await s.manager.trigger();
    return { s, logs };
  }
  const notification = (o: Record<string, unknown> = {}) => ({ payload: job('acme', 'api', 249, 'main', o) });
  const hook = (s: Served, body: unknown, token = 'hook-secret') => s.post('/v1/events/deploy', body, { authorization: `Bearer ${token}` });

  it('decides the job, answers the sender with its decision_id, and logs the decision', async () => {
    const { s, logs } = await deployServer();
    const ok = await hook(s, notification());
    expect(ok.status).toBe(200);
    expect(ok.body.result).toEqual({ allow: true, reasons: [] });
    const failed = await hook(s, notification({ outcome: 'failed', branch: 'feature/x' }));
    expect(failed.body.result.allow).toBe(false);
    expect(failed.body.result.reasons).toEqual(expect.arrayContaining(['the job\'s outcome is failed, not success', 'branch "feature/x" may not deploy (allowed: ["main"])']));
    const untested = await hook(s, { payload: job('acme', 'api', 248, 'main') });
    expect(untested.body.result.reasons).toEqual(['no test metadata is known for this job']);
    await waitFor('three decision log events', () => logs.events.length >= 3);
    const byId = new Map(logs.events.map((e) => [e.decision_id, e]));
    expect(byId.get(ok.body.decision_id)).toMatchObject({ path: 'regolith/pipeline/deploy/decision', requested_by: 'adapter:deploy', input: notification(), result: { allow: true, reasons: [] } });
    expect(byId.get(failed.body.decision_id)?.result.allow).toBe(false);
    expect(new Set([ok, failed, untested].map((r) => r.body.decision_id)).size).toBe(3);
  });

  it('a supply-chain finding in data.insights blocks the deploy', async () => {
    const { s } = await deployServer();
    addVersion(insights, 'NPM', 'left-pad', '1.3.0', { licenses: ['AGPL-3.0-only'] });
    await s.manager.adapters!.data.get('insights')!.refresh();
    const r = await hook(s, notification());
    expect(r.body.result).toEqual({ allow: false, reasons: ['supply chain: NPM/left-pad@1.3.0: licence "AGPL-3.0-only" is not in the allowed list'] });
  });

  it('refuses senders without the secret, bodies that are not job notifications, and unknown adapters', async () => {
    const { s, logs } = await deployServer();
    expect((await hook(s, notification(), 'wrong')).status).toBe(401);
    expect((await s.post('/v1/events/deploy', notification())).status).toBe(401);
    expect((await s.post('/v1/events/deploy', notification(), { authorization: 'Basic aG9vay1zZWNyZXQ=' })).status).toBe(401);
    const notJSON = await hook(s, '{"payload": ');
    expect(notJSON).toMatchObject({ status: 400, body: { code: 'invalid_parameter' } });
    expect(notJSON.body.message).toMatch(/not JSON/);
    expect((await hook(s, { build_num: 1 })).body.message).toMatch(/no "payload" object/);
    expect((await hook(s, { payload: { branch: 'main' } })).body.message).toMatch(/build_num/);
    const unknown = await s.post('/v1/events/nope', notification(), { authorization: 'Bearer hook-secret' });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'resource_not_found' } });
    // nothing was decided, so nothing was logged
    await new Promise((r) => setTimeout(r, 100));
    expect(logs.events).toHaveLength(0);
  });

  it('decides a freshly finished job on data that includes its tests, and logs the revision that decided', async () => {
    // the read before the decision gets 20 s, not 5 configured seconds = 100 ms a loaded machine can miss (the deadline has its own test below)
    const { s, logs } = await deployServer({}, {}, { decide_within_seconds: 1000 });
    const before = (await s.get('/v1/status')).body.result.adapters.pipeline.active_revision;
    const testsRead = () => ci.requests.filter((r) => r.url.endsWith('/300/tests')).length;
    ci.jobs.get('github/acme/api')!.push(job('acme', 'api', 300, 'main'));
    ci.tests.set('github/acme/api/300', [{ name: 'works', classname: 'api', result: 'success', run_time: 1, file: 'a', source: 'mocha', message: null }]);
    // the first delivery, as the job finishes: allowed
    const first = await hook(s, { payload: job('acme', 'api', 300, 'main') });
    expect(first.body.result).toEqual({ allow: true, reasons: [] });
    const doc = (await s.get('/v1/data/pipeline')).body.result;
    expect(doc.tests['github/acme/api']['300']).toEqual(ci.tests.get('github/acme/api/300'));
    expect(doc.jobs['github/acme/api'].main[0].build_num).toBe(300);
    await waitFor('the decision logged', () => logs.events.some((e) => e.decision_id === first.body.decision_id));
    const logged = logs.events.find((e) => e.decision_id === first.body.decision_id)!;
    const decided = logged.bundles['adapter/pipeline'].revision;
    expect(decided).toMatch(/^[0-9a-f]{16}$/);
    expect(decided).not.toBe(before);
    // the refresh after the answer keeps the finished job's tests (read once, never again)
    await waitFor('the refresh after the answer', () => ci.requests.filter((r) => r.url === '/api/v1.1/projects').length >= 2);
    await s.manager.trigger();
    expect(testsRead()).toBe(1);
    // a failing test in a new job is seen on its first delivery too
    ci.jobs.get('github/acme/api')!.push(job('acme', 'api', 301, 'main'));
    ci.tests.set('github/acme/api/301', [{ name: 'breaks', classname: 'api', result: 'failure', run_time: 1, file: 'a', source: 'mocha', message: 'x' }]);
    expect((await hook(s, { payload: job('acme', 'api', 301, 'main') })).body.result.reasons).toEqual(['test api.breaks: failure']);
  });

  it('decides on the data as it is when the job\'s tests cannot be read within decide_within_seconds', async () => {
    const { s } = await deployServer();
    ci.jobs.get('github/acme/api')!.push(job('acme', 'api', 300, 'main'));
    ci.tests.set('github/acme/api/300', [{ name: 'works', classname: 'api', result: 'success', run_time: 1, file: 'a', source: 'mocha', message: null }]);
    ci.faults.push({ hang: true }, { hang: true }, { hang: true }, { hang: true }, { hang: true });
    const t0 = Date.now();
    const r = await hook(s, { payload: job('acme', 'api', 300, 'main') });
    expect(r.status).toBe(200);
    expect(r.body.result.reasons).toEqual(['no test metadata is known for this job']);
    // 5 configured seconds at 20 ms each, not the service's timeouts and retries
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('accepts deliveries signed with the secret (HMAC of the body) and refuses forged, altered and replayed ones', async () => {
    const { s } = await deployServer({}, {}, { signature: { header: 'X-Signature-256', prefix: 'sha256=', timestamp_header: 'X-Timestamp', replay_window_seconds: 300 } });
    const body = JSON.stringify(notification());
    const now = () => String(Math.floor(Date.now() / 1000));
    const sign = (b: string, ts: string, key = 'hook-secret') => 'sha256=' + createHmac('sha256', key).update(`${ts}.${b}`).digest('hex');
    const send = (b: string, headers: Record<string, string>) => s.post('/v1/events/deploy', b, headers);
    const ts = now();
    const ok = await send(body, { 'x-signature-256': sign(body, ts), 'x-timestamp': ts });
    expect(ok.status).toBe(200);
    expect(ok.body.result.allow).toBe(true);
    // forged (another key), altered body, no timestamp, outside the replay window, not hex
    expect((await send(body, { 'x-signature-256': sign(body, ts, 'guess'), 'x-timestamp': ts })).status).toBe(401);
    expect((await send(body.replace('"main"', '"mainx"'), { 'x-signature-256': sign(body, ts), 'x-timestamp': ts })).status).toBe(401);
    expect((await send(body, { 'x-signature-256': sign(body, ts) })).status).toBe(401);
    const old = String(Math.floor(Date.now() / 1000) - 301);
    expect((await send(body, { 'x-signature-256': sign(body, old), 'x-timestamp': old })).status).toBe(401);
    expect((await send(body, { 'x-signature-256': 'sha256=zz' + sign(body, ts).slice(9), 'x-timestamp': ts })).status).toBe(401);
    // the Bearer token still works
    expect((await hook(s, notification())).status).toBe(200);
  });

  it('accepts the secret as the last path segment only when token_in_path is set', async () => {
    const { s } = await deployServer({}, {}, { token_in_path: true });
    expect((await s.post('/v1/events/deploy/hook-secret', notification())).body.result.allow).toBe(true);
    expect((await s.post('/v1/events/deploy/wrong', notification())).status).toBe(401);
    expect((await hook(s, notification())).status).toBe(200);
    const plain = await deployServer();
    expect((await plain.s.post('/v1/events/deploy/hook-secret', notification())).status).toBe(404);
  });

  it('refuses a signature configuration it cannot check', async () => {
    await expect(serve({ adapters: { deploy: { type: 'pipeline_webhook', rule: 'data.x.allow', token: 't', signature: { header: 'x-sig', algorithm: 'md5' } } } })).rejects.toThrow(/adapters\.deploy\.signature\.algorithm: "md5" is not one of sha1, sha256, sha512/);
    await expect(serve({ adapters: { deploy: { type: 'pipeline_webhook', rule: 'data.x.allow', token: 't', signature: { algorithm: 'sha1' } } } })).rejects.toThrow(/adapters\.deploy\.signature\.header/);
  });

  it('loses no decision across a collector outage', async () => {
    const { s, logs } = await deployServer();
    logs.up = false;
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await hook(s, notification({ subject: `n${i}` }))).body.decision_id);
    await new Promise((r) => setTimeout(r, 150)); // several failed uploads meanwhile
    expect(logs.events).toHaveLength(0);
    logs.up = true;
    await waitFor('every decision to arrive', () => logs.events.length >= 40, 10_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(logs.events.map((e) => e.decision_id).sort()).toEqual([...ids].sort());
  });

  it('goes through the authorization policy like every route', async () => {
    const authz = 'package system.authz\n\ndefault allow := false\n\nallow if input.path == ["v1", "events", "deploy"]\n';
    const { s } = await deployServer({ access: { authorization: 'basic' } }, { 'authz.rego': authz });
    expect((await hook(s, notification())).body.result.allow).toBe(true);
    expect((await s.get('/v1/data/pipeline')).status).toBe(401);
  });

  it('needs a token in the configuration', async () => {
    await expect(serve({ adapters: { deploy: { type: 'pipeline_webhook', rule: 'data.x.allow' } } })).rejects.toThrow(/adapters\.deploy: an event adapter needs token or token_path/);
  });
});
