// A stand-in for the Directory administration API v1 (prefix /admin/directory/v1): a
// Bearer token (401 otherwise); list calls answered as {kind, etag, <field>: [...],
// nextPageToken} with pages of at most `pageSize` items (or maxResults when smaller),
// followed with pageToken; users of a customer or a domain, deleted ones with
// showDeleted=true; members of a group by id or email; org units (type=all, orgUnitPath)
// and one by its {orgUnitPath=**} path; users/watch and channels/stop recorded.

import { httpServer, type TestHTTPServer } from '../../loopback.js';
import type http from 'node:http';
import { applyFault, type Fault } from '../../plugins/adapters/stand-ins/faults.js';

type Obj = Record<string, any>;

export const PREFIX = '/admin/directory/v1';

export interface DirectoryStandIn extends TestHTTPServer {
  token: string;
  /** The customer id `my_customer` stands for. */
  customerId: string;
  pageSize: number;
  /** Users, deleted ones with `deleted: true` (never sent: the list they are in says it). */
  users: Obj[];
  groups: Obj[];
  /** Members by group email. */
  members: Map<string, Obj[]>;
  orgUnits: Obj[];
  roles: Obj[];
  roleAssignments: Obj[];
  privileges: Obj[];
  domains: Obj[];
  domainAliases: Obj[];
  chromeos: Obj[];
  mobile: Obj[];
  faults: Fault[];
  /** users/watch calls: the query and the channel body. */
  watches: { query: Record<string, string>; body: Obj; channel: Obj }[];
  /** channels/stop bodies. */
  stopped: Obj[];
  /** The paths org units were asked for one by one, as sent (still encoded). */
  orgUnitGets: string[];
}

function send(res: http.ServerResponse, status: number, v: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(v === undefined ? '' : JSON.stringify(v));
}

const error = (res: http.ServerResponse, status: number, message: string) => send(res, status, { error: { code: status, message, errors: [{ message, domain: 'global' }] } });

export async function directoryStandIn(token = 'dir-secret'): Promise<DirectoryStandIn> {
  const s = (await httpServer(() => {})) as DirectoryStandIn;
  Object.assign(s, {
    token,
    customerId: 'C01abc',
    pageSize: 3,
    users: [],
    groups: [],
    members: new Map(),
    orgUnits: [],
    roles: [],
    roleAssignments: [],
    privileges: [],
    domains: [],
    domainAliases: [],
    chromeos: [],
    mobile: [],
    faults: [],
    watches: [],
    stopped: [],
    orgUnitGets: [],
  });
  let channels = 0;

  const page = (res: http.ServerResponse, q: URLSearchParams, kind: string, field: string, all: Obj[]) => {
    const max = q.has('maxResults') ? Number(q.get('maxResults')) : s.pageSize;
    if (!Number.isInteger(max) || max < 1) return error(res, 400, 'Invalid value for maxResults');
    const size = Math.min(max, s.pageSize);
    const tok = q.get('pageToken');
    const from = tok ? Number(Buffer.from(tok, 'base64url').toString().replace(/^off:/, '')) : 0;
    if (!Number.isInteger(from)) return error(res, 400, 'Invalid page token');
    const items = all.slice(from, from + size);
    const body: Obj = { kind, etag: `"etag-${from}"` };
    if (items.length) body[field] = items;
    if (from + size < all.length) body['nextPageToken'] = Buffer.from(`off:${from + size}`).toString('base64url');
    send(res, 200, body);
  };
  const customerOk = (c: string) => c === 'my_customer' || c === s.customerId;
  const inScope = (q: URLSearchParams, email: string): boolean | undefined => {
    const customer = q.get('customer');
    const domain = q.get('domain');
    if (customer === null && domain === null) return undefined;
    if (customer !== null && !customerOk(customer)) return false;
    return domain === null || email.toLowerCase().endsWith('@' + domain.toLowerCase());
  };

  s.handler = (req, res) => {
    if (req.headers['authorization'] !== `Bearer ${s.token}`) return error(res, 401, 'Login Required.');
    if (applyFault(s.faults, res)) return;
    const url = new URL(req.url, 'http://x');
    const q = url.searchParams;
    if (!url.pathname.startsWith(PREFIX + '/')) return error(res, 404, 'Not Found');
    const path = url.pathname.slice(PREFIX.length);
    const rawPath = req.url.split('?')[0]!.slice(PREFIX.length);
    if (req.method === 'POST' && path === '/users/watch') {
      const body = JSON.parse(req.body.toString('utf8')) as Obj;
      if (body['type'] !== 'web_hook' || typeof body['address'] !== 'string' || typeof body['id'] !== 'string') return error(res, 400, 'Invalid channel');
      if (!q.get('customer') && !q.get('domain')) return error(res, 400, 'Bad Request: customer or domain');
      const channel = {
        kind: 'api#channel',
        id: body['id'],
        resourceId: `res-${++channels}`,
        resourceUri: `${s.url}${PREFIX}/users?event=${q.get('event')}&alt=json`,
        token: body['token'],
        expiration: String(Date.now() + 3_600_000),
      };
      s.watches.push({ query: Object.fromEntries(q), body, channel });
      return send(res, 200, channel);
    }
    if (req.method === 'POST' && path === '/channels/stop') {
      s.stopped.push(JSON.parse(req.body.toString('utf8')) as Obj);
      res.writeHead(204);
      return void res.end();
    }
    if (req.method !== 'GET') return error(res, 405, 'Method not allowed');
    if (path === '/users') {
      const deleted = q.get('showDeleted') === 'true';
      if (inScope(q, '') === undefined) return error(res, 400, 'Bad Request');
      const users = s.users.filter((u) => !!u['deleted'] === deleted && inScope(q, u['primaryEmail'])).map(({ deleted: _d, ...u }) => u);
      return page(res, q, 'admin#directory#users', 'users', users);
    }
    if (path === '/groups') {
      if (inScope(q, '') === undefined) return error(res, 400, 'Bad Request');
      return page(res, q, 'admin#directory#groups', 'groups', s.groups.filter((g) => inScope(q, g['email'])));
    }
    let m = /^\/groups\/([^/]+)\/members$/.exec(rawPath);
    if (m) {
      const key = decodeURIComponent(m[1]!);
      const g = s.groups.find((x) => x['id'] === key || x['email'] === key);
      const email = g?.['email'] ?? key;
      const ms = s.members.get(email);
      if (!ms) return error(res, 404, 'Resource Not Found: groupKey');
      return page(res, q, 'admin#directory#members', 'members', ms);
    }
    m = /^\/customer\/([^/]+)\/(.*)$/.exec(rawPath);
    if (!m || !customerOk(decodeURIComponent(m[1]!))) return error(res, m ? 403 : 404, m ? 'Not Authorized to access this resource/api' : 'Not Found');
    const rest = m[2]!;
    if (rest === 'orgunits') {
      const under = q.get('orgUnitPath');
      let units = s.orgUnits;
      if (under && under !== '/') units = units.filter((u) => (u['orgUnitPath'] as string).startsWith(under.replace(/\/$/, '') + '/'));
      if (q.get('type') !== 'all') units = units.filter((u) => u['parentOrgUnitPath'] === (under || '/'));
      return send(res, 200, { kind: 'admin#directory#orgUnits', etag: '"ou"', organizationUnits: units });
    }
    if (rest.startsWith('orgunits/')) {
      const enc = rest.slice('orgunits/'.length);
      s.orgUnitGets.push(enc);
      const p = '/' + enc.split('/').map(decodeURIComponent).join('/');
      const u = s.orgUnits.find((x) => x['orgUnitPath'] === p);
      return u ? send(res, 200, u) : error(res, 404, 'Org unit not found');
    }
    const lists: Record<string, [string, string, Obj[]]> = {
      roles: ['admin#directory#roles', 'items', s.roles],
      roleassignments: ['admin#directory#roleAssignments', 'items', s.roleAssignments],
      'roles/ALL/privileges': ['admin#directory#privileges', 'items', s.privileges],
      domains: ['admin#directory#domains', 'domains', s.domains],
      domainaliases: ['admin#directory#domainAliases', 'domainAliases', s.domainAliases],
      'devices/chromeos': ['admin#directory#chromeosdevices', 'chromeosdevices', s.chromeos],
      'devices/mobile': ['admin#directory#mobiledevices', 'mobiledevices', s.mobile],
    };
    const l = lists[rest];
    if (l) return page(res, q, l[0], l[1], l[2]);
    error(res, 404, 'Not Found');
  };
  return s;
}

let ids = 100;

/** A user with the usual fields. */
export function user(email: string, orgUnitPath: string, o: Obj = {}): Obj {
  const [name] = email.split('@');
  return {
    kind: 'admin#directory#user',
    id: String(++ids),
    etag: `"u${ids}"`,
    primaryEmail: email,
    name: { givenName: name, familyName: 'Example', fullName: `${name} Example` },
    isAdmin: false,
    isDelegatedAdmin: false,
    agreedToTerms: true,
    suspended: false,
    archived: false,
    changePasswordAtNextLogin: false,
    ipWhitelisted: false,
    isMailboxSetup: true,
    customerId: 'C01abc',
    orgUnitPath,
    isEnrolledIn2Sv: true,
    includeInGlobalAddressList: true,
    creationTime: '2026-01-01T00:00:00.000Z',
    ...o,
  };
}

export function group(email: string, o: Obj = {}): Obj {
  return { kind: 'admin#directory#group', id: `g-${email.split('@')[0]}`, etag: '"g"', email, name: email.split('@')[0], directMembersCount: '0', adminCreated: true, ...o };
}

export function member(email: string, type: 'USER' | 'GROUP' = 'USER', o: Obj = {}): Obj {
  return { kind: 'admin#directory#member', etag: '"m"', id: `id-${email}`, email, role: 'MEMBER', type, status: 'ACTIVE', ...o };
}

export function orgUnit(path: string, o: Obj = {}): Obj {
  const parts = path.split('/').filter(Boolean);
  return {
    kind: 'admin#directory#orgUnit',
    etag: '"ou"',
    name: parts[parts.length - 1],
    orgUnitPath: path,
    orgUnitId: `id:${parts.join('-')}`,
    parentOrgUnitPath: '/' + parts.slice(0, -1).join('/'),
    parentOrgUnitId: 'id:parent',
    blockInheritance: false,
    ...o,
  };
}
