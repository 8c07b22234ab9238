// The Directory administration API v1 adapter (type: directory) serves at data.directory
// what it reads of one customer (`customer`, default my_customer; users and groups of one
// `domain` when that is configured). Emails used as keys are lower-cased; every object is
// as the API gave it, except where said:
//   customer                             the configured customer (and `domain` when set)
//   users["<primaryEmail>"]              active and suspended users (not deleted ones)
//   deleted_users["<id>"]                deleted users (users?showDeleted=true), keyed by
//                                        user id: a deleted address can be reused, and
//                                        deleted again. Absent with include_deleted_users: false
//   aliases["<alias>"]                   the primary email of the user or group an alias
//                                        (aliases, nonEditableAliases) belongs to
//   groups["<email>"]                    groups; with `members` read, each carries
//                                        `members`: its direct members as the API lists them
//   group_members_all["<group email>"]   (members) every email that is a member, directly
//                                        or through nested groups (a CUSTOMER member stands
//                                        for every user of the customer), sorted: what
//                                        GET /groups/{g}/hasMember/{m} answers, for all at once
//   member_of["<email>"]                 (members) every group the email is a member of,
//                                        directly or through nested groups, sorted
//   org_units["<orgUnitPath>"]           org units (the whole tree, or the `org_units`
//                                        subtrees: each one and all below it)
//   roles["<roleId>"]                    roles
//   role_assignments["<roleAssignmentId>"]
//   user_roles["<primaryEmail>"]         (users, roles, role_assignments) the names of the
//                                        roles assigned to the user directly, sorted
//   privileges[]                         the privileges (roles/ALL/privileges), in API order
//   domains["<domainName>"], domain_aliases["<domainAliasName>"]
//   devices.chromeos["<deviceId>"], devices.mobile["<resourceId>"]
// Only the resources read have their keys. Push (`push:` configured): one users/watch
// channel per event of `watch_events` (default add, delete, makeAdmin, undelete, update);
// a notification reads everything again early; the channels are stopped on shutdown at
// `channels_stop_path` (default /admin/directory/v1/channels/stop, as the seed documents;
// the Admin SDK serves it at /admin/directory_v1/channels/stop).

import { fail, type Section } from '../../plugins/config/section.js';
import { AdapterHttpError, type AdapterHttp } from '../../plugins/adapters/http.js';
import type { AdapterType, DataSource, JSONValue, PushChannel, WatchContext } from '../../plugins/adapters/types.js';
import type { PluginLogger } from '../../plugins/plugin.js';
import * as api from './client.js';
import { CHANNELS_STOP, MAX_PAGE, WATCH_EVENTS, type Scope, type WatchEvent } from './client.js';
import { pool } from '../../plugins/adapters/pool.js';
import { isObj } from '../../plugins/adapters/types.js';

export const RESOURCES = ['users', 'groups', 'members', 'org_units', 'roles', 'role_assignments', 'privileges', 'domains', 'domain_aliases', 'chromeos_devices', 'mobile_devices'] as const;
export type Resource = (typeof RESOURCES)[number];

export interface DirectorySettings extends Scope {
  resources: Resource[];
  include_deleted_users: boolean;
  /** Page size asked of every list (capped at each list's maximum); undefined: each list's maximum. */
  max_results?: number;
  /** Org unit subtrees to read (paths like /Eng); undefined: the whole tree. */
  org_units?: string[];
  watch_events: WatchEvent[];
  channels_stop_path: string;
}

type Obj = Record<string, JSONValue>;
const str = (o: Obj, k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : typeof o[k] === 'number' ? String(o[k]) : undefined);
const lc = (s: string): string => s.toLowerCase();
const MAX_RESULTS = Math.max(...Object.values(MAX_PAGE));

/** Objects keyed by a field (lower-cased for emails); items without it are skipped. */
function keyed(items: JSONValue[], field: string, lower = false): Obj {
  const out: Obj = {};
  for (const x of items) {
    if (!isObj(x)) continue;
    const k = str(x, field);
    if (k !== undefined) out[lower ? lc(k) : k] = x;
  }
  return out;
}

function addAliases(out: Obj, items: Obj, primary: string): void {
  for (const [email, o] of Object.entries(items)) {
    if (!isObj(o)) continue;
    for (const f of ['aliases', 'nonEditableAliases']) {
      const list = o[f];
      if (Array.isArray(list)) for (const a of list) if (typeof a === 'string') out[lc(a)] = str(o, primary) ? lc(str(o, primary)!) : email;
    }
  }
}

/**
 * Transitive membership: for each group, every email reachable through GROUP members
 * (cycles included once); a CUSTOMER member stands for every user.
 */
export function transitiveMembers(direct: Map<string, JSONValue[]>, allUsers: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const expand = (g: string): Set<string> => {
    const seen = new Set<string>();
    const visited = new Set<string>([g]);
    const stack = [g];
    while (stack.length) {
      const cur = stack.pop()!;
      for (const m of direct.get(cur) ?? []) {
        if (!isObj(m)) continue;
        const type = str(m, 'type');
        if (type === 'CUSTOMER') {
          for (const u of allUsers) seen.add(u);
          continue;
        }
        const email = str(m, 'email');
        if (email === undefined) continue;
        seen.add(lc(email));
        if (type === 'GROUP' && !visited.has(lc(email))) {
          visited.add(lc(email));
          stack.push(lc(email));
        }
      }
    }
    return seen;
  };
  for (const g of direct.keys()) out.set(g, [...expand(g)].sort());
  return out;
}

/** Direct members of every listed group, and of nested groups the list lacks (other domains). */
async function readMembers(http: AdapterHttp, s: DirectorySettings, groups: Obj, log: PluginLogger): Promise<Map<string, JSONValue[]>> {
  const direct = new Map<string, JSONValue[]>();
  await pool(Object.entries(groups), 8, async ([email, g]) => {
    const key = (isObj(g) && str(g, 'id')) || email;
    direct.set(email, await api.members(http, key, s.max_results));
  });
  // nested groups outside the list: read once each, when the API lets us
  const tried = new Set(direct.keys());
  for (;;) {
    const missing = new Set<string>();
    for (const ms of direct.values()) {
      for (const m of ms) {
        const e = isObj(m) && str(m, 'type') === 'GROUP' ? str(m, 'email') : undefined;
        if (e !== undefined && !tried.has(lc(e))) missing.add(lc(e));
      }
    }
    if (!missing.size) return direct;
    await pool([...missing], 8, async (e) => {
      tried.add(e);
      try {
        direct.set(e, await api.members(http, e, s.max_results));
      } catch (err) {
        if (!(err instanceof AdapterHttpError) || (err.httpCode !== 403 && err.httpCode !== 404)) throw err;
        log.warn({ group: e, err: err.message }, 'Directory: a nested group outside the listed ones cannot be read; its members are not counted.');
      }
    });
  }
}

async function readOrgUnits(http: AdapterHttp, s: DirectorySettings): Promise<Obj> {
  if (!s.org_units) return keyed(await api.orgUnits(http, s), 'orgUnitPath');
  const out: Obj = {};
  for (const root of s.org_units) {
    if (root.split('/').some((x) => x !== '')) Object.assign(out, keyed([await api.orgUnit(http, s, root)], 'orgUnitPath'));
    Object.assign(out, keyed(await api.orgUnits(http, s, root), 'orgUnitPath'));
  }
  return out;
}

export async function readDirectory(http: AdapterHttp, s: DirectorySettings, log: PluginLogger): Promise<JSONValue> {
  const want = new Set(s.resources);
  const doc: Obj = { customer: s.customer };
  if (s.domain !== undefined) doc['domain'] = s.domain;
  const aliases: Obj = {};
  let users: Obj | undefined;
  if (want.has('users')) {
    users = keyed(await api.users(http, s, false, s.max_results), 'primaryEmail', true);
    doc['users'] = users;
    addAliases(aliases, users, 'primaryEmail');
    if (s.include_deleted_users) {
      const deleted: Obj = {};
      for (const u of await api.users(http, s, true, s.max_results)) {
        const k = isObj(u) ? (str(u, 'id') ?? str(u, 'primaryEmail')) : undefined;
        if (k !== undefined) deleted[k] = u;
      }
      doc['deleted_users'] = deleted;
    }
  }
  if (want.has('groups')) {
    const groups = keyed(await api.groups(http, s, s.max_results), 'email', true);
    addAliases(aliases, groups, 'email');
    if (want.has('members')) {
      const direct = await readMembers(http, s, groups, log);
      for (const [email, g] of Object.entries(groups)) groups[email] = { ...(g as Obj), members: direct.get(email) ?? [] };
      const all = transitiveMembers(direct, Object.keys(users ?? {}));
      const groupMembersAll: Obj = {};
      const memberOf: Record<string, Set<string>> = {};
      for (const g of Object.keys(groups)) {
        const ms = all.get(g) ?? [];
        groupMembersAll[g] = ms;
        for (const m of ms) (memberOf[m] ??= new Set()).add(g);
      }
      doc['group_members_all'] = groupMembersAll;
      doc['member_of'] = Object.fromEntries(Object.entries(memberOf).map(([m, gs]) => [m, [...gs].sort()]));
    }
    doc['groups'] = groups;
  }
  if (want.has('users') || want.has('groups')) doc['aliases'] = aliases;
  if (want.has('org_units')) doc['org_units'] = await readOrgUnits(http, s);
  let roles: Obj | undefined;
  let assignments: Obj | undefined;
  if (want.has('roles')) doc['roles'] = roles = keyed(await api.roles(http, s, s.max_results), 'roleId');
  if (want.has('role_assignments')) doc['role_assignments'] = assignments = keyed(await api.roleAssignments(http, s, s.max_results), 'roleAssignmentId');
  if (users && roles && assignments) {
    const emailOfId = new Map<string, string>();
    for (const [email, u] of Object.entries(users)) if (isObj(u) && str(u, 'id')) emailOfId.set(str(u, 'id')!, email);
    const byUser: Record<string, Set<string>> = {};
    for (const a of Object.values(assignments)) {
      if (!isObj(a)) continue;
      const t = str(a, 'assigneeType');
      if (t !== undefined && t !== 'user') continue;
      const email = emailOfId.get(str(a, 'assignedTo') ?? '');
      const role = roles[str(a, 'roleId') ?? ''];
      const name = isObj(role) ? str(role, 'roleName') : undefined;
      if (email !== undefined && name !== undefined) (byUser[email] ??= new Set()).add(name);
    }
    doc['user_roles'] = Object.fromEntries(Object.entries(byUser).map(([e, rs]) => [e, [...rs].sort()]));
  }
  if (want.has('privileges')) doc['privileges'] = await api.privileges(http, s, s.max_results);
  if (want.has('domains')) doc['domains'] = keyed(await api.domains(http, s), 'domainName');
  if (want.has('domain_aliases')) doc['domain_aliases'] = keyed(await api.domainAliases(http, s), 'domainAliasName');
  if (want.has('chromeos_devices') || want.has('mobile_devices')) {
    const devices: Obj = {};
    if (want.has('chromeos_devices')) devices['chromeos'] = keyed(await api.chromeosDevices(http, s, s.max_results), 'deviceId');
    if (want.has('mobile_devices')) devices['mobile'] = keyed(await api.mobileDevices(http, s, s.max_results), 'resourceId');
    doc['devices'] = devices;
  }
  return doc;
}

/** One users/watch channel per event; a failure stops those already opened. */
async function watch(s: DirectorySettings, ctx: WatchContext): Promise<PushChannel[]> {
  const out: PushChannel[] = [];
  try {
    for (const e of s.watch_events) out.push(await api.watchUsers(ctx.http, s, e, ctx));
  } catch (err) {
    await unwatch(s, ctx, out).catch(() => undefined);
    throw err;
  }
  return out;
}

/** channels/stop for each channel; every one is tried, the failures reported together. */
async function unwatch(s: DirectorySettings, ctx: WatchContext, channels: PushChannel[]): Promise<void> {
  const errors: string[] = [];
  for (const c of channels) {
    try {
      await api.stopChannel(ctx.http, c, s.channels_stop_path);
    } catch (e) {
      errors.push(`channel ${c.id}: ${(e as Error).message}`);
    }
  }
  if (errors.length) throw new Error(`channels/stop failed for ${errors.length} of ${channels.length} channels: ${errors.join('; ')}`);
}

export const directory: AdapterType<DirectorySettings> = {
  kind: 'data',
  defaultRoot: 'directory',
  pushTokenHeader: 'x-goog-channel-token',
  settings(s: Section): DirectorySettings {
    const customer = s.str('customer') ?? 'my_customer';
    if (customer === '') fail(`${s.key}.customer`, 'must not be empty (my_customer, or the customer id)');
    const domain = s.str('domain');
    if (domain === '') fail(`${s.key}.domain`, 'must not be empty');
    const list = s.strList('resources');
    if (list !== undefined && !list.length) fail(`${s.key}.resources`, 'names nothing to read');
    list?.forEach((r, i) => {
      if (!(RESOURCES as readonly string[]).includes(r)) fail(`${s.key}.resources[${i}]`, `"${r}" is not one of ${RESOURCES.join(', ')}`);
    });
    const resources = (list ?? [...RESOURCES]) as Resource[];
    if (resources.includes('members') && !resources.includes('groups')) fail(`${s.key}.resources`, '"members" are read per group: add "groups"');
    const max = s.int('max_results');
    if (max !== undefined && (max < 1 || max > MAX_RESULTS)) fail(`${s.key}.max_results`, `must be between 1 and ${MAX_RESULTS}`);
    const org_units = s.strList('org_units');
    org_units?.forEach((p, i) => {
      if (!p.startsWith('/')) fail(`${s.key}.org_units[${i}]`, `"${p}" is not an org unit path (it starts with "/")`);
    });
    if (org_units !== undefined && !resources.includes('org_units')) fail(`${s.key}.org_units`, 'org units are not among the resources read');
    const events = s.strList('watch_events');
    if (events !== undefined && !events.length) fail(`${s.key}.watch_events`, 'names no event (leave push out to watch nothing)');
    events?.forEach((e, i) => {
      if (!(WATCH_EVENTS as readonly string[]).includes(e)) fail(`${s.key}.watch_events[${i}]`, `"${e}" is not one of ${WATCH_EVENTS.join(', ')}`);
    });
    const stop = s.str('channels_stop_path') ?? CHANNELS_STOP;
    if (!stop.startsWith('/')) fail(`${s.key}.channels_stop_path`, 'must be a path starting with "/"');
    if (s.has('push') && !resources.includes('users')) fail(`${s.key}.push`, 'notifications come from users/watch: "users" must be among the resources');
    return {
      customer,
      domain,
      resources,
      include_deleted_users: s.bool('include_deleted_users', true),
      max_results: max,
      org_units,
      watch_events: (events ?? [...WATCH_EVENTS]) as WatchEvent[],
      channels_stop_path: stop,
    };
  },
  data(settings: DirectorySettings): DataSource {
    return {
      read: (ctx) => readDirectory(ctx.http, settings, ctx.log),
      watch: (ctx) => watch(settings, ctx),
      unwatch: (ctx, channels) => unwatch(settings, ctx, channels),
    };
  },
};
