// The Directory administration API v1 adapter end to end: a real server reading a stand-in
// Directory API over loopback into data.directory (every list across several pages),
// deciding access with the shipped directory-access policy, keeping the last good data
// through throttling, server errors, malformed bodies and a revoked token, and taking
// users/watch push notifications (channels opened after a read, stopped on shutdown).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { registerIntegrations } from '../../../src/integrations/index.js';
import { orgUnitPathValue } from '../../../src/integrations/directory/client.js';
import { waitFor } from '../../loopback.js';
import { serve, shippedPolicy, type Served } from '../../plugins/adapters/harness.js';
import { directoryStandIn, group, member, orgUnit, PREFIX, user, type DirectoryStandIn } from './stand-in.js';

// The shipped adapter types, as the runtime registers them before it reads a configuration.
registerIntegrations();

let api: DirectoryStandIn;
let running: Served[] = [];

beforeEach(async () => {
  api = await directoryStandIn('dir-secret');
  api.users = [
    user('ann@example.com', '/Eng/Backend', { aliases: ['annie@example.com'], nonEditableAliases: ['ann@example.test-google-a.com'] }),
    user('bob@example.com', '/Eng', { suspended: true, suspensionReason: 'ADMIN' }),
    user('cat@example.com', '/Sales'),
    user('eve@example.com', '/Eng/R&D Team'),
    user('Zed@Example.com', '/Eng'),
    user('gus@example.com', '/Eng', { deleted: true, deletionTime: '2026-10-01T00:00:00.000Z' }),
    user('gus@example.com', '/Eng', { deleted: true, deletionTime: '2026-11-01T00:00:00.000Z' }),
    user('ivy@sub.example.com', '/Eng'),
  ];
  for (let i = 1; i <= 7; i++) api.users.push(user(`filler${i}@example.com`, '/Eng'));
  api.groups = [group('staff@example.com', { aliases: ['everyone@example.com'] }), group('backend@example.com'), group('platform@example.com'), group('all@example.com'), group('empty@example.com')];
  api.members.set('staff@example.com', [
    member('eve@example.com'),
    member('bob@example.com'),
    member('cat@example.com'),
    member('gus@example.com'),
    member('backend@example.com', 'GROUP'),
    member('partners@other.example', 'GROUP'),
    member('ghost@elsewhere.example', 'GROUP'),
  ]);
  // backend -> platform -> staff -> backend: a cycle
  api.members.set('backend@example.com', [member('ann@example.com', 'USER', { role: 'OWNER' }), member('platform@example.com', 'GROUP')]);
  api.members.set('platform@example.com', [member('zed@example.com'), member('staff@example.com', 'GROUP')]);
  api.members.set('all@example.com', [{ kind: 'admin#directory#member', id: 'C01abc', role: 'MEMBER', type: 'CUSTOMER', status: 'ACTIVE' }]);
  api.members.set('empty@example.com', []);
  // a group of another customer, reachable by its email only
  api.members.set('partners@other.example', [member('pat@other.example')]);
  api.orgUnits = [orgUnit('/Eng'), orgUnit('/Eng/Backend'), orgUnit('/Eng/R&D Team'), orgUnit('/Eng/R&D Team/Ünits 50%'), orgUnit('/Sales'), orgUnit('/Engineering')];
  api.roles = ['_SEED_ADMIN_ROLE', '_GROUPS_ADMIN_ROLE', '_USER_MANAGEMENT_ADMIN_ROLE', 'Helpdesk', '_MOBILE_ADMIN_ROLE'].map((roleName, i) => ({
    kind: 'admin#directory#role',
    roleId: String(9000 + i),
    roleName,
    isSystemRole: roleName.startsWith('_'),
    isSuperAdminRole: i === 0,
    rolePrivileges: [{ privilegeName: 'USERS_RETRIEVE', serviceId: '00haapch16h1ysv' }],
  }));
  const ann = api.users[0]!;
  const cat = api.users[2]!;
  api.roleAssignments = [
    { kind: 'admin#directory#roleAssignment', roleAssignmentId: 'ra1', roleId: '9003', assignedTo: ann['id'], assigneeType: 'user', scopeType: 'CUSTOMER' },
    { kind: 'admin#directory#roleAssignment', roleAssignmentId: 'ra2', roleId: '9001', assignedTo: ann['id'], scopeType: 'ORG_UNIT', orgUnitId: 'id:Eng' },
    { kind: 'admin#directory#roleAssignment', roleAssignmentId: 'ra3', roleId: '9003', assignedTo: cat['id'], assigneeType: 'user', scopeType: 'CUSTOMER' },
    { kind: 'admin#directory#roleAssignment', roleAssignmentId: 'ra4', roleId: '9002', assignedTo: 'g-staff', assigneeType: 'group', scopeType: 'CUSTOMER' },
  ];
  api.privileges = ['USERS_RETRIEVE', 'USERS_UPDATE', 'GROUPS_RETRIEVE', 'ORGANIZATION_UNITS_RETRIEVE', 'MANAGE_DEVICES'].map((privilegeName) => ({
    kind: 'admin#directory#privilege',
    serviceId: '00haapch16h1ysv',
    serviceName: 'admin',
    privilegeName,
    isOuScopable: true,
  }));
  api.domains = [
    { kind: 'admin#directory#domain', domainName: 'example.com', isPrimary: true, verified: true, creationTime: '1600000000000' },
    { kind: 'admin#directory#domain', domainName: 'sub.example.com', isPrimary: false, verified: true, creationTime: '1600000000001' },
  ];
  api.domainAliases = [{ kind: 'admin#directory#domainAlias', domainAliasName: 'example.org', parentDomainName: 'example.com', verified: true }];
  for (let i = 1; i <= 7; i++) api.chromeos.push({ kind: 'admin#directory#chromeosdevice', deviceId: `cros-${i}`, serialNumber: `SN${i}`, status: 'ACTIVE', orgUnitPath: '/Eng', annotatedUser: 'ann@example.com' });
  for (let i = 1; i <= 4; i++) api.mobile.push({ kind: 'admin#directory#mobiledevice', resourceId: `mob-${i}`, type: 'ANDROID', status: 'APPROVED', email: ['ann@example.com'] });
});
afterEach(async () => {
  for (const s of running) await s.stop();
  running = [];
  await api.close();
});

function config(adapter: Record<string, unknown> = {}, token = 'dir-secret'): Record<string, unknown> {
  return {
    // no header deadline (0, as Go's): at 20 ms a configured second any deadline is one a loaded machine misses (a read retried, or failed with no document)
    services: { directory: { url: api.url, credentials: { bearer: { token } }, response_header_timeout_seconds: 0 } },
    adapters: { directory: { type: 'directory', service: 'directory', trigger: 'manual', retry: { max_retries: 1 }, ...adapter } },
  };
}

/** The shipped policy, with its settings as a module of data.directory_access. */
const POLICIES = {
  'access.rego': shippedPolicy('directory-access/access.rego'),
  'settings.rego': 'package directory_access\n\norg_units := ["/Eng"]\n\ngroups := ["staff@example.com"]\n',
};

async function start(cfg: Record<string, unknown>, policies: Record<string, string> = POLICIES): Promise<Served> {
  const s = await serve(cfg, policies);
  running.push(s);
  return s;
}

const doc = async (s: Served) => (await s.get('/v1/data/directory')).body.result;
const status = async (s: Served) => (await s.get('/v1/status')).body.result.adapters.directory;
const decide = async (s: Served, u: string) => (await s.post('/v1/data/regolith/directory/access/decision', { input: { user: u } })).body.result;
const listCalls = (suffix: string) => api.requests.filter((r) => r.method === 'GET' && r.url.split('?')[0] === PREFIX + suffix).map((r) => Object.fromEntries(new URL(r.url, 'http://x').searchParams));

describe('directory adapter', () => {
  it('serves every resource at data.directory, each list read across its pages', async () => {
    const s = await start(config());
    await s.manager.trigger();
    const d = await doc(s);
    expect(d.customer).toBe('my_customer');
    // active users by lower-cased primary email; deleted ones by id (the address was deleted twice)
    expect(Object.keys(d.users).sort()).toEqual(['ann@example.com', 'bob@example.com', 'cat@example.com', 'eve@example.com', 'filler1@example.com', 'filler2@example.com', 'filler3@example.com', 'filler4@example.com', 'filler5@example.com', 'filler6@example.com', 'filler7@example.com', 'ivy@sub.example.com', 'zed@example.com']);
    expect(d.users['bob@example.com']).toMatchObject({ suspended: true, orgUnitPath: '/Eng' });
    expect(Object.values(d.deleted_users).map((u: any) => u.primaryEmail)).toEqual(['gus@example.com', 'gus@example.com']);
    expect(Object.keys(d.deleted_users)).toEqual(api.users.filter((u) => u['deleted']).map((u) => u['id']));
    expect(d.aliases).toEqual({ 'annie@example.com': 'ann@example.com', 'ann@example.test-google-a.com': 'ann@example.com', 'everyone@example.com': 'staff@example.com' });
    // 13 users at 3 a page: 5 pages, each after the first with the token the previous one gave
    const userPages = listCalls('/users').filter((q) => q['showDeleted'] === undefined);
    expect(userPages).toHaveLength(5);
    expect(userPages[0]).toEqual({ customer: 'my_customer', maxResults: '500' });
    expect(userPages.slice(1).every((q) => q['pageToken'])).toBe(true);
    expect(listCalls('/users').filter((q) => q['showDeleted'] === 'true')).toHaveLength(1);
    // groups with their direct members (7 members of staff: 3 pages)
    expect(Object.keys(d.groups).sort()).toEqual(['all@example.com', 'backend@example.com', 'empty@example.com', 'platform@example.com', 'staff@example.com']);
    expect(d.groups['staff@example.com'].members.map((m: any) => m.email)).toEqual(api.members.get('staff@example.com')!.map((m) => m['email']));
    expect(listCalls('/groups/g-staff/members')).toHaveLength(3);
    expect(d.groups['empty@example.com'].members).toEqual([]);
    // transitive membership: nesting, the cycle, a group of another customer, a CUSTOMER member
    expect(d.member_of['ann@example.com']).toEqual(['all@example.com', 'backend@example.com', 'platform@example.com', 'staff@example.com']);
    expect(d.member_of['zed@example.com']).toEqual(['all@example.com', 'backend@example.com', 'platform@example.com', 'staff@example.com']);
    expect(d.member_of['pat@other.example']).toEqual(['backend@example.com', 'platform@example.com', 'staff@example.com']);
    expect(d.member_of['cat@example.com']).toEqual(['all@example.com', 'backend@example.com', 'platform@example.com', 'staff@example.com']);
    expect(d.group_members_all['all@example.com']).toEqual(Object.keys(d.users).sort());
    expect(d.group_members_all['staff@example.com']).toContain('ghost@elsewhere.example');
    expect(d.group_members_all['empty@example.com']).toEqual([]);
    // org units by path; roles, assignments, the roles of each user
    expect(Object.keys(d.org_units).sort()).toEqual(['/Eng', '/Eng/Backend', '/Eng/R&D Team', '/Eng/R&D Team/Ünits 50%', '/Engineering', '/Sales']);
    expect(listCalls('/customer/my_customer/orgunits')).toEqual([{ type: 'all' }]);
    expect(Object.keys(d.roles)).toEqual(['9000', '9001', '9002', '9003', '9004']);
    expect(listCalls('/customer/my_customer/roles')).toHaveLength(2);
    expect(Object.keys(d.role_assignments)).toEqual(['ra1', 'ra2', 'ra3', 'ra4']);
    expect(d.user_roles).toEqual({ 'ann@example.com': ['Helpdesk', '_GROUPS_ADMIN_ROLE'], 'cat@example.com': ['Helpdesk'] });
    expect(d.privileges.map((p: any) => p.privilegeName)).toEqual(api.privileges.map((p) => p['privilegeName']));
    expect(Object.keys(d.domains)).toEqual(['example.com', 'sub.example.com']);
    expect(Object.keys(d.domain_aliases)).toEqual(['example.org']);
    expect(Object.keys(d.devices.chromeos)).toEqual(['cros-1', 'cros-2', 'cros-3', 'cros-4', 'cros-5', 'cros-6', 'cros-7']);
    expect(listCalls('/customer/my_customer/devices/chromeos')).toHaveLength(3);
    expect(Object.keys(d.devices.mobile)).toEqual(['mob-1', 'mob-2', 'mob-3', 'mob-4']);
    // the service's bearer token on every request
    expect(api.requests.every((r) => r.headers['authorization'] === 'Bearer dir-secret')).toBe(true);
    expect((await status(s)).active_revision).toMatch(/^[0-9a-f]{16}$/);
    expect((await s.get('/health?bundles&plugins')).status).toBe(200);
  });

  it('decides access with the shipped policy over the synced data', async () => {
    const s = await start(config());
    expect((await s.get('/health?bundles&plugins')).status).not.toBe(200);
    await s.manager.trigger();
    // nested: ann is in backend, which is in staff
    expect(await decide(s, 'ann@example.com')).toEqual({ allow: true, reasons: [] });
    expect((await decide(s, 'Annie@Example.com')).allow).toBe(true);
    expect(await decide(s, 'eve@example.com')).toEqual({ allow: true, reasons: [] });
    expect(await decide(s, 'bob@example.com')).toEqual({ allow: false, reasons: ['user bob@example.com is suspended'] });
    expect(await decide(s, 'gus@example.com')).toEqual({ allow: false, reasons: ['user gus@example.com is deleted'] });
    expect(await decide(s, 'cat@example.com')).toEqual({ allow: false, reasons: ['org unit /Sales is not under any of ["/Eng"]'] });
    expect(await decide(s, 'filler1@example.com')).toEqual({ allow: false, reasons: ['user filler1@example.com is in none of the groups ["staff@example.com"]'] });
    expect((await decide(s, 'nobody@example.com')).reasons).toEqual(['user nobody@example.com is not in the directory']);
    // a change in the directory reaches the decisions at the next read
    api.users.find((u) => u['primaryEmail'] === 'ann@example.com')!['suspended'] = true;
    await s.manager.trigger();
    expect(await decide(s, 'ann@example.com')).toEqual({ allow: false, reasons: ['user ann@example.com is suspended'] });
  });

  it('reads the configured resources only, of one domain, with the page size asked', async () => {
    const s = await start(config({ domain: 'example.com', resources: ['users', 'groups'], include_deleted_users: false, max_results: 2 }));
    await s.manager.trigger();
    const d = await doc(s);
    expect(Object.keys(d).sort()).toEqual(['aliases', 'customer', 'domain', 'groups', 'users']);
    expect(d.users['ivy@sub.example.com']).toBeUndefined();
    expect(d.groups['staff@example.com'].members).toBeUndefined();
    const pages = listCalls('/users');
    expect(pages[0]).toEqual({ domain: 'example.com', maxResults: '2' });
    expect(pages).toHaveLength(6); // 12 users of example.com, 2 a page
    expect(api.requests.filter((r) => r.url.includes('/members') || r.url.includes('/customer/'))).toEqual([]);
  });

  it('reads org unit subtrees, each path percent-encoded segment by segment', async () => {
    expect(orgUnitPathValue('/Eng/R&D Team/Ünits 50%')).toBe('Eng/R%26D%20Team/%C3%9Cnits%2050%25');
    expect(orgUnitPathValue('/a/../b?c#d/')).toBe('a/%2E%2E/b%3Fc%23d');
    expect(() => orgUnitPathValue('/')).toThrow(/no org unit below the root/);
    const s = await start(config({ resources: ['org_units'], org_units: ['/Eng/R&D Team', '/Sales/'] }));
    await s.manager.trigger();
    expect(api.orgUnitGets).toEqual(['Eng/R%26D%20Team', 'Sales']);
    expect(listCalls('/customer/my_customer/orgunits')).toEqual([
      { type: 'all', orgUnitPath: '/Eng/R&D Team' },
      { type: 'all', orgUnitPath: '/Sales/' },
    ]);
    expect(Object.keys((await doc(s)).org_units).sort()).toEqual(['/Eng/R&D Team', '/Eng/R&D Team/Ünits 50%', '/Sales']);
  });

  it('retries throttling and server errors; keeps the last good data through 5xx, malformed bodies and a revoked token', async () => {
    const s = await start(config({ retry: { max_retries: 3 } }));
    await s.manager.trigger();
    const good = await doc(s);
    const requests = () => api.requests.length;

    api.faults.push({ status: 429, retryAfter: '1' }, { status: 503 }, { reset: true });
    const stats = s.manager.adapters!.data.get('directory')!.http.stats;
    const throttled = stats.throttled;
    api.users.push(user('new@example.com', '/Eng'));
    await s.manager.trigger();
    expect((await status(s)).code).toBeUndefined();
    const withNew = await doc(s);
    expect(withNew.users['new@example.com']).toBeDefined();
    expect(stats.throttled - throttled).toBe(1);

    api.faults.push({ status: 500 }, { status: 504 }, { status: 500 }, { status: 502 });
    api.users.pop();
    await s.manager.trigger();
    let st = await status(s);
    expect(st).toMatchObject({ code: 'adapter_error', http_code: '502' });
    expect(await doc(s)).toEqual(withNew);

    api.faults.push({ malformed: true });
    await s.manager.trigger();
    st = await status(s);
    expect(st.message).toMatch(/not JSON/);
    expect(await doc(s)).toEqual(withNew);

    api.token = 'revoked';
    const before = requests();
    await s.manager.trigger();
    st = await status(s);
    expect(st).toMatchObject({ code: 'adapter_error', http_code: '401' });
    expect(st.message).toMatch(/Login Required/);
    expect(requests() - before).toBe(1);
    expect(await doc(s)).toEqual(withNew);

    api.token = 'dir-secret';
    await s.manager.trigger();
    expect((await status(s)).code).toBeUndefined();
    expect(await doc(s)).toEqual(good);
  });

  it('a list that is not a list is an error, not data', async () => {
    const s = await start(config({ resources: ['domains'] }));
    await s.manager.trigger();
    const good = await doc(s);
    api.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'admin#directory#domains', domains: { name: 'example.com' } }));
    };
    await s.manager.trigger();
    expect((await status(s)).message).toMatch(/"domains" is not a list/);
    expect(await doc(s)).toEqual(good);
  });
});

describe('directory push notifications', () => {
  const push = { address: 'https://regolith.example/v1/events/directory', token: 'chan-secret' };
  const notify = (s: Served, headers: Record<string, string>) => s.post('/v1/events/directory', '', { 'x-goog-channel-id': api.watches[0]?.channel['id'] ?? 'x', 'x-goog-resource-id': 'res-1', 'x-goog-message-number': '2', ...headers });

  it('opens a users/watch channel per event after the first read, reads early on a notification, stops every channel on shutdown', async () => {
    const s = await start(config({ push }));
    expect(api.watches).toEqual([]);
    await s.manager.trigger();
    expect(api.watches.map((w) => w.query)).toEqual(['add', 'delete', 'makeAdmin', 'undelete', 'update'].map((event) => ({ customer: 'my_customer', event })));
    for (const w of api.watches) {
      expect(w.body).toMatchObject({ type: 'web_hook', address: push.address, token: 'chan-secret' });
      expect(Number(w.body['expiration'])).toBeGreaterThan(Date.now() + 3_500_000);
    }
    expect(new Set(api.watches.map((w) => w.body['id'])).size).toBe(5);
    const open = s.manager.adapters!.data.get('directory')!.openChannels();
    expect(open.map((c) => [c.id, c.resourceId, c.expiration, c.resource])).toEqual(api.watches.map((w) => [w.channel['id'], w.channel['resourceId'], Number(w.channel['expiration']), `users/${w.query['event']}`]));

    // a second read does not open them again
    await s.manager.trigger();
    expect(api.watches).toHaveLength(5);

    // sync: the channel exists; nothing to read
    let before = api.requests.length;
    expect((await notify(s, { 'x-goog-channel-token': 'chan-secret', 'x-goog-resource-state': 'sync' })).status).toBe(200);
    // a wrong or missing token is refused
    expect((await notify(s, { 'x-goog-channel-token': 'wrong', 'x-goog-resource-state': 'update' })).status).toBe(401);
    expect((await notify(s, { 'x-goog-resource-state': 'update' })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 100));
    expect(api.requests.length).toBe(before);

    // a change, then its notification: the adapter reads early
    api.users.find((u) => u['primaryEmail'] === 'eve@example.com')!['suspended'] = true;
    before = api.requests.length;
    const r = await notify(s, { 'x-goog-channel-token': 'chan-secret', 'x-goog-resource-state': 'update' });
    expect(r.status).toBe(200);
    await waitFor('the early read', async () => (await doc(s)).users['eve@example.com'].suspended === true);
    expect(api.requests.length).toBeGreaterThan(before);
    expect(await decide(s, 'eve@example.com')).toEqual({ allow: false, reasons: ['user eve@example.com is suspended'] });

    await s.stop();
    expect(api.stopped).toEqual(api.watches.map((w) => ({ id: w.channel['id'], resourceId: w.channel['resourceId'] })));
    expect(api.requests.filter((r) => r.url === PREFIX + '/channels/stop').every((r) => r.headers['authorization'] === 'Bearer dir-secret')).toBe(true);
  });

  it('watches the configured events of the domain, and stops channels at the configured path', async () => {
    const s = await start(config({ push, domain: 'example.com', watch_events: ['delete', 'undelete'], channels_stop_path: '/admin/directory_v1/channels/stop' }));
    await s.manager.trigger();
    expect(api.watches.map((w) => w.query)).toEqual([
      { domain: 'example.com', event: 'delete' },
      { domain: 'example.com', event: 'undelete' },
    ]);
    await s.stop();
    // the stand-in serves the seed's path only: the Admin SDK's is answered 404, and shutdown goes on
    expect(api.requests.filter((r) => r.url === '/admin/directory_v1/channels/stop')).toHaveLength(2);
  });

  it('a channel that cannot be opened stops the ones already opened; polling goes on', async () => {
    const s = await start(config({ push, retry: { max_retries: 0 } }));
    const normal = api.handler;
    api.handler = (req, res) => {
      if (req.url.includes('event=makeAdmin')) {
        res.writeHead(400, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: { code: 400, message: 'Invalid event' } }));
      }
      return normal(req, res);
    };
    await s.manager.trigger();
    expect((await status(s)).code).toBeUndefined();
    expect(api.watches.map((w) => w.query['event'])).toEqual(['add', 'delete']);
    expect(api.stopped.map((x) => x['id'])).toEqual(api.watches.map((w) => w.channel['id']));
    expect(s.manager.adapters!.data.get('directory')!.openChannels()).toEqual([]);
  });
});

describe('directory configuration', () => {
  const one = (a: Record<string, unknown>) => validateConfig({ services: { d: { url: 'http://127.0.0.1:1' } }, adapters: { dir: { type: 'directory', ...a } } });

  it('fills in the defaults', () => {
    const c = one({}).adapters['dir']!;
    expect(c).toMatchObject({ kind: 'data', root: ['directory'], service: 'd' });
    expect(c.settings).toEqual({
      customer: 'my_customer',
      domain: undefined,
      resources: ['users', 'groups', 'members', 'org_units', 'roles', 'role_assignments', 'privileges', 'domains', 'domain_aliases', 'chromeos_devices', 'mobile_devices'],
      include_deleted_users: true,
      max_results: undefined,
      org_units: undefined,
      watch_events: ['add', 'delete', 'makeAdmin', 'undelete', 'update'],
      channels_stop_path: '/admin/directory/v1/channels/stop',
    });
    expect(one({ push: { address: 'https://x.example/v1/events/dir', token: 't' } }).adapters['dir']!.push).toMatchObject({ token_header: 'x-goog-channel-token', ttl_seconds: 3600 });
  });

  it('names the key of every mistake', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ resources: ['users', 'people'] }, /adapters\.dir\.resources\[1\]: "people" is not one of users, groups, members/],
      [{ resources: [] }, /adapters\.dir\.resources: names nothing to read/],
      [{ resources: 'users' }, /adapters\.dir\.resources: expected a list of strings/],
      [{ resources: ['members'] }, /adapters\.dir\.resources: "members" are read per group: add "groups"/],
      [{ customer: '' }, /adapters\.dir\.customer: must not be empty/],
      [{ max_results: 0 }, /adapters\.dir\.max_results: must be between 1 and 500/],
      [{ max_results: 501 }, /adapters\.dir\.max_results: must be between 1 and 500/],
      [{ include_deleted_users: 'yes' }, /adapters\.dir\.include_deleted_users: expected a boolean/],
      [{ org_units: ['Eng'] }, /adapters\.dir\.org_units\[0\]: "Eng" is not an org unit path/],
      [{ org_units: ['/Eng'], resources: ['users'] }, /adapters\.dir\.org_units: org units are not among the resources read/],
      [{ watch_events: ['create'] }, /adapters\.dir\.watch_events\[0\]: "create" is not one of add, delete, makeAdmin, undelete, update/],
      [{ channels_stop_path: 'channels/stop' }, /adapters\.dir\.channels_stop_path: must be a path/],
      [{ resources: ['groups'], push: { address: 'https://x.example/e', token: 't' } }, /adapters\.dir\.push: notifications come from users\/watch/],
      [{ push: { address: 'https://x.example/e' } }, /adapters\.dir\.push: push needs token or token_path/],
      [{ push: { address: 'ftp://x', token: 't' } }, /adapters\.dir\.push\.address/],
      [{ show_deleted: true }, /adapters\.dir\.show_deleted: unknown configuration key/],
    ];
    for (const [a, message] of cases) expect(() => one(a), JSON.stringify(a)).toThrow(message);
  });
});
