// The deployment manager adapter end to end: a real server reading a stand-in deployment
// manager API v2beta over loopback into data.deployments (deployments, current or all
// manifests, resources, IAM policies, the latest operations, types, type providers) through
// several pages; the shipped policies deciding over it: iam_scope (a change by a principal
// without the role is a violation) and change_window, with the calendar adapter in the
// same server (no deployment during its owner's out-of-office block); faults keeping the
// last good data; configuration errors that name their key.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serve, shippedPolicy, type Served } from '../../plugins/adapters/harness.js';
import { calendarStandIn, entry, event, type CalendarStandIn } from '../calendar/stand-in.js';
import { addDeployment, BASE, deploymentsStandIn, emptyProject, type DeploymentsStandIn } from './stand-in.js';

let dm: DeploymentsStandIn;
let running: Served[] = [];
const closers: (() => Promise<void>)[] = [];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PROD = 'acme-prod';
const STAGING = 'acme-staging';

const vm = (name: string, o: Record<string, unknown> = {}) => ({ name, type: 'compute.v1.instance', ...o });

beforeEach(async () => {
  dm = await deploymentsStandIn('dm-secret');
  dm.projects.set(PROD, emptyProject());
  dm.projects.set(STAGING, emptyProject());
  addDeployment(dm, PROD, 'web', {
    labels: { owner: 'alice', tier: 'frontend' },
    manifests: 3,
    resources: [vm('web-1'), vm('web-2'), vm('web-3'), { name: 'web-net', type: 'compute.v1.network' }, { name: 'web-fw', type: 'compute.v1.firewall' }],
    bindings: [
      { role: 'roles/owner', members: ['user:alice@example.com'] },
      { role: 'roles/compute.instanceAdmin', members: ['user:bob@example.com', 'group:ops@example.com'] },
    ],
  });
  addDeployment(dm, PROD, 'api', {
    labels: { owner: 'bob' },
    resources: [vm('api-1'), { name: 'api-net', type: 'compute.v1.network', update: { intent: 'CREATE_OR_ACQUIRE', state: 'IN_PREVIEW', manifest: 'm' } }],
    bindings: [{ role: 'roles/compute.instanceAdmin', members: ['user:deployer@example.com'] }],
  });
  addDeployment(dm, PROD, 'db', { labels: { owner: 'carol' }, resources: [{ name: 'db-sql', type: 'sqladmin.v1beta4.instance' }] });
  dm.iamForbidden.add('db');
  addDeployment(dm, STAGING, 'web', { labels: { owner: 'alice' }, resources: [vm('stg-1')] });
  const prod = dm.projects.get(PROD)!;
  for (let i = 1; i <= 7; i++) prod.operations.push({ kind: 'deploymentmanager#operation', name: `operation-${i}`, operationType: 'update', status: 'DONE', user: 'deployer@example.com', insertTime: `2026-11-0${i}T10:00:00.000-07:00` });
  prod.types = ['compute.v1.instance', 'compute.v1.network', 'compute.v1.firewall', 'storage.v1.bucket', 'sqladmin.v1beta4.instance'].map((name) => ({ name }));
  prod.typeProviders = ['k8s', 'cloudfunctions', 'iam'].map((name) => ({ name, descriptorUrl: `https://${name}.example/discovery`, insertTime: '2026-10-01T00:00:00Z' }));
});
afterEach(async () => {
  for (const s of running) await s.stop();
  running = [];
  for (const c of closers.splice(0)) await c();
  await dm.close();
});

function config(adapter: Record<string, unknown> = {}, token = 'dm-secret'): Record<string, unknown> {
  return {
    // no header deadline (0, as Go's): at 20 ms a configured second any deadline is one a loaded machine misses (a read retried, or failed with no document)
    services: { dm: { url: dm.url, credentials: { bearer: { token } }, response_header_timeout_seconds: 0 } },
    adapters: { dm: { type: 'deployment_manager', service: 'dm', trigger: 'manual', retry: { max_retries: 2 }, projects: [PROD, STAGING], operations_limit: 3, ...adapter } },
  };
}

async function start(cfg: Record<string, unknown>, policies: Record<string, string> = {}): Promise<Served> {
  const s = await serve(cfg, policies);
  running.push(s);
  return s;
}

const paths = () => dm.requests.map((r) => new URL(r.url, 'http://x'));

describe('deployment manager adapter', () => {
  it('serves deployments with their current manifest, resources and IAM policy, operations, types and type providers, across pages', async () => {
    const s = await start(config());
    await s.manager.trigger();
    const doc = (await s.get('/v1/data/deployments')).body.result;
    expect(Object.keys(doc.projects)).toEqual([PROD, STAGING]);
    const prod = doc.projects[PROD];
    // three deployments over two pages, by name
    expect(Object.keys(prod.deployments)).toEqual(['api', 'db', 'web']);
    const web = prod.deployments.web;
    expect(web.deployment).toMatchObject({ name: 'web', labels: [{ key: 'owner', value: 'alice' }, { key: 'tier', value: 'frontend' }] });
    expect(web.deployment.fingerprint).toBeTypeOf('string');
    // the current manifest (the one the deployment's manifest URL names), fetched by name
    expect(web.manifest.name).toBe(web.deployment.manifest.split('/').pop());
    expect(web.manifest.name).toMatch(/-3$/);
    expect(web.manifest.config.content).toContain('resources:');
    expect(web.manifests).toBeUndefined();
    // five resources over three pages, keyed by name
    expect(Object.keys(web.resources)).toEqual(['web-1', 'web-2', 'web-3', 'web-fw', 'web-net']);
    expect(web.resources['web-net']).toMatchObject({ name: 'web-net', type: 'compute.v1.network', finalProperties: expect.any(String) });
    expect(prod.deployments.api.resources['api-net'].update).toMatchObject({ intent: 'CREATE_OR_ACQUIRE', state: 'IN_PREVIEW' });
    expect(web.iam.bindings).toEqual([
      { role: 'roles/owner', members: ['user:alice@example.com'] },
      { role: 'roles/compute.instanceAdmin', members: ['user:bob@example.com', 'group:ops@example.com'] },
    ]);
    // an IAM policy the credentials may not read: an error entry, the rest is read
    expect(prod.deployments.db.iam).toBeUndefined();
    expect(Object.keys(prod.deployments.db.resources)).toEqual(['db-sql']);
    expect(doc.errors).toEqual([{ project: PROD, deployment: 'db', what: 'iam', message: expect.stringMatching(/server answered 403: Permission denied on deployment db/) }]);
    // the three newest operations, newest first; paging stopped once they were read
    expect(prod.operations.map((o: any) => o.name)).toEqual(['operation-7', 'operation-6', 'operation-5']);
    const opPages = paths().filter((u) => u.pathname === `${BASE}/${PROD}/global/operations`);
    expect(opPages.map((u) => [u.searchParams.get('maxResults'), u.searchParams.get('pageToken'), u.searchParams.get('orderBy')])).toEqual([
      ['3', null, 'creationTimestamp desc'],
      ['1', 'tok2', 'creationTimestamp desc'],
    ]);
    expect(prod.types.map((t: any) => t.name)).toEqual(['compute.v1.firewall', 'compute.v1.instance', 'compute.v1.network', 'sqladmin.v1beta4.instance', 'storage.v1.bucket']);
    expect(Object.keys(prod.type_providers)).toEqual(['cloudfunctions', 'iam', 'k8s']);
    expect(doc.projects[STAGING]).toMatchObject({ operations: [], types: [], type_providers: {} });
    expect(Object.keys(doc.projects[STAGING].deployments.web.resources)).toEqual(['stg-1']);
    // the IAM policy asked for in version 3; only the current manifest fetched; lists paged with maxResults
    const iam = paths().filter((u) => u.pathname.endsWith('/getIamPolicy'));
    expect(iam.map((u) => u.pathname).sort()).toEqual([`${BASE}/${PROD}/global/deployments/api/getIamPolicy`, `${BASE}/${PROD}/global/deployments/db/getIamPolicy`, `${BASE}/${PROD}/global/deployments/web/getIamPolicy`, `${BASE}/${STAGING}/global/deployments/web/getIamPolicy`]);
    expect(iam.every((u) => u.searchParams.get('optionsRequestedPolicyVersion') === '3')).toBe(true);
    expect(paths().some((u) => u.pathname.endsWith('/manifests'))).toBe(false);
    const deps = paths().filter((u) => u.pathname === `${BASE}/${PROD}/global/deployments`);
    expect(deps.map((u) => u.searchParams.get('pageToken'))).toEqual([null, 'tok2']);
    expect(deps[0]!.searchParams.get('maxResults')).toBe('500');

    const st = (await s.get('/v1/status')).body.result.adapters.dm;
    expect(st.active_revision).toMatch(/^[0-9a-f]{16}$/);
    expect(st.code).toBeUndefined();
    expect((await s.get('/health?bundles')).status).toBe(200);
    await s.manager.trigger();
    expect((await s.get('/v1/status')).body.result.adapters.dm.active_revision).toBe(st.active_revision);
  });

  it('reads every manifest (manifests: all), or none', async () => {
    const all = await start(config({ manifests: 'all', page_size: 100, operations_limit: 0, types: false, type_providers: false, iam: false }));
    await all.manager.trigger();
    const web = (await all.get('/v1/data/deployments')).body.result.projects[PROD].deployments.web;
    expect(Object.keys(web.manifests)).toHaveLength(3);
    expect(web.manifest).toEqual(web.manifests[web.manifest.name]);
    expect(web.manifest.name).toMatch(/-3$/);
    expect(web.iam).toBeUndefined();
    const doc = (await all.get('/v1/data/deployments')).body.result;
    expect(doc.projects[PROD].operations).toEqual([]);
    expect(doc.projects[PROD].types).toBeUndefined();
    expect(paths().some((u) => /\/(operations|types|typeProviders|getIamPolicy)$/.test(u.pathname))).toBe(false);
    expect(paths().filter((u) => u.pathname.endsWith('/manifests')).every((u) => u.searchParams.get('maxResults') === '100')).toBe(true);
    await all.stop();

    dm.requests.length = 0;
    const none = await start(config({ manifests: 'none' }));
    await none.manager.trigger();
    const web2 = (await none.get('/v1/data/deployments')).body.result.projects[PROD].deployments.web;
    expect(web2.manifest).toBeUndefined();
    expect(paths().some((u) => u.pathname.includes('/manifests'))).toBe(false);
  });

  it('a wrong token or an unknown project fails the read and keeps the last good data; faults are retried', async () => {
    const s = await start(config({ retry: { max_retries: 3 } }));
    await s.manager.trigger();
    const good = (await s.get('/v1/data/deployments')).body.result;
    dm.token = 'rotated';
    const before = dm.requests.length;
    await s.manager.trigger();
    let st = (await s.get('/v1/status')).body.result.adapters.dm;
    expect(st).toMatchObject({ code: 'adapter_error', http_code: '401' });
    expect(st.message).toMatch(/Request is missing required authentication credential/);
    expect(dm.requests.length - before).toBe(1);
    expect((await s.get('/v1/data/deployments')).body.result).toEqual(good);
    dm.token = 'dm-secret';
    dm.faults.push({ malformed: true });
    await s.manager.trigger();
    expect((await s.get('/v1/status')).body.result.adapters.dm.message).toMatch(/not JSON/);
    expect((await s.get('/v1/data/deployments')).body.result).toEqual(good);
    dm.projects.delete(STAGING);
    await s.manager.trigger();
    st = (await s.get('/v1/status')).body.result.adapters.dm;
    expect(st).toMatchObject({ code: 'adapter_error', http_code: '404' });
    expect(st.message).toMatch(/projects\/acme-staging' was not found/);
    expect((await s.get('/v1/data/deployments')).body.result).toEqual(good);
    dm.projects.set(STAGING, emptyProject());
    dm.faults.push({ status: 429, retryAfter: '1' }, { status: 500 }, { status: 503 });
    addDeployment(dm, PROD, 'cache', { resources: [vm('cache-1')] });
    await s.manager.trigger();
    expect((await s.get('/v1/status')).body.result.adapters.dm.code).toBeUndefined();
    expect(Object.keys((await s.get('/v1/data/deployments')).body.result.projects[PROD].deployments)).toEqual(['api', 'cache', 'db', 'web']);
  });

  it('names the key of each configuration mistake', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ projects: undefined }, /adapters\.dm\.projects: missing required value/],
      [{ projects: [] }, /adapters\.dm\.projects: missing required value/],
      [{ projects: ['Not A Project'] }, /adapters\.dm\.projects\[0\]: "Not A Project" is not a project id/],
      [{ manifests: 'newest' }, /adapters\.dm\.manifests: "newest" is not one of latest, all, none/],
      [{ operations_limit: -1 }, /adapters\.dm\.operations_limit: expected a non-negative integer/],
      [{ page_size: 501 }, /adapters\.dm\.page_size: must be between 1 and 500/],
      [{ iam: 'yes' }, /adapters\.dm\.iam: expected a boolean/],
      [{ colour: 'blue' }, /adapters\.dm\.colour: unknown configuration key/],
    ];
    for (const [a, message] of cases) await expect(serve(config(a)), JSON.stringify(a)).rejects.toThrow(message);
  });
});

const IAM_SCOPE = { 'iam_scope.rego': shippedPolicy('deployments/iam_scope.rego') };

describe('iam_scope policy over data.deployments', () => {
  const decide = (s: Served, input: unknown) => s.post('/v1/data/regolith/deployments/iam_scope/decision', { input });

  it('a change by a principal without the role is a violation; with the role it is not', async () => {
    const s = await start(config(), IAM_SCOPE);
    await s.manager.trigger();
    // which role may do what: data.deployment_roles (here through the data API)
    expect((await fetch(s.server.url + '/v1/data/deployment_roles', { method: 'PUT', body: JSON.stringify({ 'roles/owner': [{ types: ['*'], actions: ['*'] }], 'roles/compute.instanceAdmin': [{ types: ['compute.v1.instance', 'compute.v1.disk'], actions: ['create', 'update', 'delete'] }] }) })).status).toBe(204);
    const change = (principal: string, resources: unknown[], o: Record<string, unknown> = {}) => ({ project: PROD, deployment: 'web', principal, resources, ...o });
    const create = [{ name: 'web-4', type: 'compute.v1.instance', action: 'create' }];
    const ok = await decide(s, change('bob@example.com', create));
    expect(ok.body.result).toEqual({ allow: true, violations: [] });
    expect((await decide(s, change('user:dave@example.com', create, { groups: ['group:ops@example.com'] }))).body.result.allow).toBe(true);
    const denied = (await decide(s, change('mallory@example.com', create))).body.result;
    expect(denied.allow).toBe(false);
    expect(denied.violations).toEqual([
      { deployment: 'web', resource: 'web-4', type: 'compute.v1.instance', action: 'create', message: 'resource "web-4": user:mallory@example.com holds no role on deployment acme-prod/web that may create a compute.v1.instance (roles held: [])' },
    ]);
    // bob's role covers instances, not networks; alice owns the deployment
    const net = [{ name: 'web-net', type: 'compute.v1.network', action: 'delete' }];
    expect((await decide(s, change('bob@example.com', net))).body.result.violations[0].message).toMatch(/may delete a compute\.v1\.network \(roles held: \["roles\/compute\.instanceAdmin"\]\)/);
    expect((await decide(s, change('alice@example.com', net))).body.result.allow).toBe(true);
    // the IAM policy the adapter could not read allows nothing
    const db = (await decide(s, { project: PROD, deployment: 'db', principal: 'alice@example.com', resources: create })).body.result;
    expect(db.violations[0].message).toMatch(/deployment acme-prod\/db has no IAM policy/);
    // the pending preview of api (started by deployer@, who may change instances only)
    const pending = (await s.post('/v1/data/regolith/deployments/iam_scope/pending_violations', {})).body.result;
    expect(pending).toEqual([expect.objectContaining({ deployment: 'acme-prod/api', resource: 'api-net', action: 'create' })]);
    // the IAM policy changes: after the next read bob may no longer create instances
    dm.projects.get(PROD)!.iam.set('web', { version: 1, etag: 'x', bindings: [{ role: 'roles/owner', members: ['user:alice@example.com'] }] });
    await s.manager.trigger();
    expect((await decide(s, change('bob@example.com', create))).body.result.allow).toBe(false);
  });
});

describe('change_window policy over data.deployments and data.calendar', () => {
  let cal: CalendarStandIn;
  beforeEach(async () => {
    cal = await calendarStandIn('cal-secret');
    closers.push(() => cal.close());
    const now = Date.now();
    const tomorrow = new Date(Math.floor(now / DAY) * DAY + DAY).toISOString().slice(0, 10);
    const dayAfter = new Date(Math.floor(now / DAY) * DAY + 2 * DAY).toISOString().slice(0, 10);
    cal.calendars.set('alice@example.com', {
      entry: entry('alice@example.com', 'owner', { primary: true }),
      acl: [],
      events: [
        event('ooo', 'outOfOffice', new Date(now - HOUR).toISOString(), new Date(now + 2 * HOUR).toISOString(), 'alice@example.com', { summary: 'Dentist' }),
        event('focus', 'focusTime', new Date(now + 4 * HOUR).toISOString(), new Date(now + 6 * HOUR).toISOString(), 'alice@example.com'),
      ],
    });
    cal.calendars.set('bob@example.com', { entry: entry('bob@example.com', 'reader'), acl: [], events: [event('day-off', 'outOfOffice', tomorrow, dayAfter, 'bob@example.com', { summary: 'Day off' })] });
  });

  async function both(): Promise<Served> {
    const cfg = config();
    (cfg['services'] as Record<string, unknown>)['gcal'] = { url: cal.url, credentials: { bearer: { token: 'cal-secret' } }, response_header_timeout_seconds: 0 };
    (cfg['adapters'] as Record<string, unknown>)['cal'] = { type: 'calendar', service: 'gcal', trigger: 'manual', event_types: ['outOfOffice'], free_busy: false };
    // the owner label holds a name (label values hold no "@"): the domain makes it the calendar id
    const s = await start(cfg, { 'change_window.rego': shippedPolicy('deployments/change_window.rego'), 'settings.rego': 'package change_window\n\nowner_domain := "example.com"\n' });
    await s.manager.trigger();
    return s;
  }
  const decide = (s: Served, input: unknown) => s.post('/v1/data/regolith/deployments/change_window/decision', { input });

  it('blocks a deployment during its owner\'s out-of-office event and allows it outside', async () => {
    const s = await both();
    const now = Date.now();
    const during = (await decide(s, { project: PROD, deployment: 'web', time: new Date(now).toISOString() })).body.result;
    expect(during.allow).toBe(false);
    expect(during.reasons).toHaveLength(1);
    expect(during.reasons[0]).toMatch(/^alice@example\.com is out of office \("Dentist", .* to .*\): no deployment of "web"$/);
    // after the block (focus time is no out-of-office)
    expect((await decide(s, { project: PROD, deployment: 'web', time: new Date(now + 5 * HOUR).toISOString() })).body.result).toEqual({ allow: true, reasons: [] });
    // an all-day out-of-office event covers its whole (UTC) day
    const noonTomorrow = new Date(Math.floor(now / DAY) * DAY + DAY + 12 * HOUR).toISOString();
    const api = (await decide(s, { project: PROD, deployment: 'api', time: noonTomorrow })).body.result;
    expect(api.allow).toBe(false);
    expect(api.reasons[0]).toMatch(/^bob@example\.com is out of office \("Day off"/);
    expect((await decide(s, { project: PROD, deployment: 'api', time: new Date(now).toISOString() })).body.result.allow).toBe(true);
    // the project is found when only one has the deployment; alice's block holds for both of hers
    expect((await decide(s, { deployment: 'api', time: noonTomorrow })).body.result.allow).toBe(false);
    expect((await decide(s, { project: STAGING, deployment: 'web', time: new Date(now).toISOString() })).body.result.allow).toBe(false);
    // carol's calendar is not read: her availability is unknown, so no deployment
    const db = (await decide(s, { project: PROD, deployment: 'db', time: new Date(now).toISOString() })).body.result;
    expect(db.reasons).toEqual(["the availability of carol@example.com is unknown: data.calendar does not hold their calendar's events"]);
    // outside the window the calendar adapter read: unknown too
    expect((await decide(s, { project: PROD, deployment: 'web', time: new Date(now + 40 * DAY).toISOString() })).body.result.reasons[0]).toMatch(/^the availability is unknown at/);
    const st = (await s.get('/v1/status')).body.result.adapters;
    expect(st.cal.code).toBeUndefined();
    expect(st.dm.code).toBeUndefined();
    expect((await s.get('/health?bundles')).status).toBe(200);
  });

  it('the block ends when the owner cancels it (after the next read), and the last good calendar stays through faults', async () => {
    const s = await both();
    const input = { project: PROD, deployment: 'web', time: new Date().toISOString() };
    expect((await decide(s, input)).body.result.allow).toBe(false);
    cal.faults.push({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    await s.manager.adapters!.data.get('cal')!.refresh();
    expect((await s.get('/v1/status')).body.result.adapters.cal.code).toBe('adapter_error');
    expect((await decide(s, input)).body.result.allow).toBe(false);
    cal.faults.length = 0;
    cal.calendars.get('alice@example.com')!.events[0]!['status'] = 'cancelled';
    await s.manager.adapters!.data.get('cal')!.refresh();
    expect((await decide(s, input)).body.result).toEqual({ allow: true, reasons: [] });
  });
});
