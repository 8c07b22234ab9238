// RBAC: 100 roles with grants over 20 resource types, 1,000 users with 1-3 roles each,
// role inheritance, an admin role, and tenants.

import { rng } from '../lib/stats.js';
import type { Scenario } from './types.js';

const TYPES = [
  'invoice', 'order', 'customer', 'product', 'shipment', 'payment', 'refund', 'report', 'dashboard', 'ticket',
  'contract', 'employee', 'payroll', 'budget', 'vendor', 'asset', 'document', 'project', 'timesheet', 'expense',
];
const ACTIONS = ['read', 'write', 'delete', 'approve', 'export'];
const DEPTS = ['finance', 'sales', 'support', 'engineering', 'hr', 'legal', 'ops', 'marketing', 'procurement', 'it', 'exec'];
const LEVELS = ['viewer', 'editor', 'manager', 'auditor', 'lead', 'analyst', 'clerk', 'intern', 'director'];

export function rbacData(): Record<string, unknown> {
  const r = rng(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const roles: string[] = ['admin'];
  for (const d of DEPTS) for (const l of LEVELS) if (roles.length < 100) roles.push(`${d}-${l}`);
  const role_grants: Record<string, { action: string; type: string }[]> = {};
  const role_inherits: Record<string, string[]> = {};
  for (const role of roles) {
    if (role === 'admin') continue;
    const grants: { action: string; type: string }[] = [];
    const n = 5 + Math.floor(r() * 8);
    for (let i = 0; i < n; i++) grants.push({ action: pick(ACTIONS), type: pick(TYPES) });
    role_grants[role] = grants;
    if (r() < 0.3) role_inherits[role] = [pick(roles.slice(1))];
  }
  const user_roles: Record<string, string[]> = {};
  const user_tenant: Record<string, string> = {};
  for (let u = 0; u < 1000; u++) {
    const id = `user-${String(u).padStart(4, '0')}`;
    const mine = new Set<string>();
    const n = 1 + Math.floor(r() * 3);
    if (u % 97 === 0) mine.add('admin');
    while (mine.size < n) mine.add(pick(roles.slice(1)));
    user_roles[id] = [...mine];
    user_tenant[id] = `tenant-${u % 10}`;
  }
  return { rbac: { role_grants, role_inherits, user_roles, user_tenant } };
}

function input(user: string, action: string, type: string, tenant: string, i: number): Record<string, unknown> {
  return {
    user,
    action,
    resource: { type, id: `${type}-2024-${String(i).padStart(6, '0')}`, tenant, owner: `user-${String((i * 7) % 1000).padStart(4, '0')}`, tags: ['q3', 'emea'] },
    request: {
      id: `req-${(i * 2654435761) >>> 0}`,
      ip: `10.${i % 256}.${(i * 3) % 256}.${(i * 7) % 256}`,
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      time: '2024-06-12T09:30:00Z',
    },
  };
}

type Grant = { action: string; type: string };
type RbacDoc = { role_grants: Record<string, Grant[]>; role_inherits: Record<string, string[]>; user_roles: Record<string, string[]>; user_tenant: Record<string, string> };

function own<T>(o: Record<string, T>, k: unknown): T | undefined {
  return typeof k === 'string' && Object.hasOwn(o, k) ? o[k] : undefined;
}

export function rbacHandWritten(data: Record<string, unknown>): (json: string) => boolean {
  const d = data['rbac'] as RbacDoc;
  const matches = (grants: Grant[] | undefined, action: unknown, type: unknown): boolean => {
    if (!grants) return false;
    for (const g of grants) if (g.action === action && g.type === type) return true;
    return false;
  };
  return (json) => {
    const input = JSON.parse(json);
    const roles = own(d.user_roles, input.user);
    const tenant = own(d.user_tenant, input.user);
    if (!roles || tenant === undefined || input.resource?.tenant !== tenant) return false;
    if (roles.includes('admin')) return true;
    const action = input.action;
    const type = input.resource.type;
    for (const role of roles) {
      if (matches(own(d.role_grants, role), action, type)) return true;
      for (const parent of own(d.role_inherits, role) ?? []) if (matches(own(d.role_grants, parent), action, type)) return true;
    }
    return false;
  };
}

export function rbacScenario(): Scenario {
  const data = rbacData();
  const d = data['rbac'] as RbacDoc;
  const r = rng(7);
  const cases: Scenario['cases'] = [];
  // Grants every user really has (so about half the decisions allow), then random requests,
  // wrong tenants and unknown users.
  for (let i = 0; i < 60; i++) {
    const user = `user-${String(Math.floor(r() * 1000)).padStart(4, '0')}`;
    const tenant = d.user_tenant[user]!;
    const role = d.user_roles[user]!.find((x) => x !== 'admin');
    const g = role ? d.role_grants[role]![Math.floor(r() * d.role_grants[role]!.length)]! : { action: 'read', type: 'invoice' };
    let inp;
    if (i % 4 === 0) inp = input(user, g.action, g.type, tenant, i);
    else if (i % 4 === 1) inp = input(user, ACTIONS[i % 5]!, TYPES[i % 20]!, tenant, i);
    else if (i % 4 === 2) inp = input(user, g.action, g.type, i % 3 ? tenant : 'tenant-x', i);
    else inp = input(i % 8 === 3 ? 'user-9999' : user, 'read', TYPES[(i * 3) % 20]!, tenant, i);
    cases.push({ json: JSON.stringify(inp), expect: undefined });
  }
  // Fixed cases with known answers, independent of both implementations.
  cases.push({ json: JSON.stringify(input('user-0000', 'delete', 'payroll', 'tenant-0', 1)), expect: true }); // admin
  cases.push({ json: JSON.stringify(input('user-0000', 'delete', 'payroll', 'tenant-1', 2)), expect: false }); // admin, other tenant
  cases.push({ json: JSON.stringify(input('nobody', 'read', 'invoice', 'tenant-0', 3)), expect: false });
  const u5 = 'user-0005';
  const g5 = d.role_grants[d.user_roles[u5]!.find((x) => x !== 'admin')!]![0]!;
  cases.push({ json: JSON.stringify(input(u5, g5.action, g5.type, d.user_tenant[u5]!, 4)), expect: true });
  return {
    name: 'RBAC (100 roles, 1,000 users)',
    policy: 'rbac.rego',
    query: 'data.rbac.allow',
    packagePath: 'rbac',
    data,
    cases,
    handWritten: rbacHandWritten,
  };
}
