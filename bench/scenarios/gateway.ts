// API gateway: 50 routes (method, path template, scopes) matched against input.path
// segments, with decoded JWT claims in the input.

import { rng } from '../lib/stats.js';
import type { Scenario } from './types.js';

interface Route {
  method: string;
  path: string[];
  scopes: string[];
}

const SERVICES: [string, string][] = [
  ['orders', 'orders'], ['customers', 'customers'], ['invoices', 'billing'], ['payments', 'billing'], ['products', 'catalog'],
  ['inventory', 'catalog'], ['shipments', 'logistics'], ['users', 'admin'], ['reports', 'reports'], ['webhooks', 'integrations'],
];

const FAR_FUTURE = 4102444800; // 2100-01-01
const PAST = 1600000000; // 2020-09-13

function input(method: string, path: string[], claims: Record<string, unknown>, i: number): Record<string, unknown> {
  return {
    method,
    path,
    query: { page: String(i % 5), limit: '50' },
    headers: {
      'user-agent': 'acme-mobile/5.12.0 (iOS 17.4)',
      'x-request-id': `b3f1c2d4-${i}`,
      'x-forwarded-for': `203.0.113.${i % 250}`,
      accept: 'application/json',
    },
    claims,
  };
}

function claims(tenant: string, scopes: string[], over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: 'https://auth.example.com/',
    sub: 'auth0|5f9c1b2e7d',
    aud: ['https://api.example.com', 'https://auth.example.com/userinfo'],
    iat: 1718180000,
    exp: FAR_FUTURE,
    azp: 'mobile-app',
    tenant,
    scope: scopes.join(' '),
    email: 'dana@example.com',
    roles: ['member'],
    ...over,
  };
}

export function gatewayHandWritten(_data: Record<string, unknown>, constants: Record<string, unknown>): (json: string) => boolean {
  const routes = constants['data.gateway.routes'] as Route[];
  const segOk = (p: string, s: unknown, tenant: unknown) => p === '*' || (p === '{tenant}' && s === tenant && s !== undefined) || p === s;
  return (json) => {
    const input = JSON.parse(json);
    const path = input.path;
    if (input.method === 'GET' && Array.isArray(path) && path.length === 1 && (path[0] === 'healthz' || path[0] === 'readyz')) return true;
    const c = input.claims;
    if (!c || c.iss !== 'https://auth.example.com/' || !Array.isArray(c.aud) || !c.aud.includes('https://api.example.com')) return false;
    if (!(typeof c.exp === 'number' && c.exp * 1e9 > Date.now() * 1e6)) return false;
    if (!Array.isArray(path) || typeof c.scope !== 'string') return false;
    let scopes: Set<string> | undefined;
    for (const r of routes) {
      if (r.method !== input.method || r.path.length !== path.length) continue;
      let ok = true;
      for (let i = 0; i < r.path.length && ok; i++) ok = segOk(r.path[i]!, path[i], c.tenant);
      if (!ok) continue;
      scopes ??= new Set(c.scope.split(' '));
      if (r.scopes.every((s) => scopes!.has(s))) return true;
    }
    return false;
  };
}

export function gatewayScenario(): Scenario {
  const t = 'acme';
  const base = (svc: string, ...rest: string[]) => ['api', 'v1', 'tenants', t, svc, ...rest];
  const fixed: [string, string[], Record<string, unknown>, boolean][] = [
    ['GET', ['healthz'], {}, true],
    ['GET', base('orders'), claims(t, ['orders:read']), true],
    ['GET', base('orders', 'o-123'), claims(t, ['orders:read']), true],
    ['DELETE', base('orders', 'o-123'), claims(t, ['orders:write']), false], // needs orders:admin too
    ['DELETE', base('orders', 'o-123'), claims(t, ['orders:write', 'orders:admin']), true],
    ['POST', base('invoices'), claims(t, ['billing:read']), false],
    ['POST', base('invoices'), claims(t, ['billing:read', 'billing:write']), true],
    ['GET', ['api', 'v1', 'tenants', 'other', 'orders'], claims(t, ['orders:read']), false], // other tenant
    ['GET', base('webhooks', 'w-1'), claims(t, ['integrations:read'], { exp: PAST }), false], // expired
    ['GET', base('webhooks', 'w-1'), claims(t, ['integrations:read'], { iss: 'https://evil.example.com/' }), false],
    ['PATCH', base('users', 'u-1'), claims(t, ['admin:write']), false], // no PATCH routes
    ['GET', base('reports', 'r-1', 'pdf'), claims(t, ['reports:read']), false], // too long
    ['GET', base('unknown'), claims(t, ['orders:read']), false],
  ];
  const cases: Scenario['cases'] = fixed.map(([m, p, c, e], i) => ({ json: JSON.stringify(input(m, p, c, i)), expect: e }));
  const r = rng(5);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  for (let i = 0; i < 60; i++) {
    const [svc, scope] = pick(SERVICES);
    const method = pick(['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE']);
    const path = r() < 0.5 ? base(svc) : base(svc, `id-${i}`);
    const scopes = [`${scope}:read`];
    if (r() < 0.5) scopes.push(`${scope}:write`);
    if (r() < 0.2) scopes.push(`${scope}:admin`);
    scopes.push('openid', 'profile');
    cases.push({ json: JSON.stringify(input(method, path, claims(r() < 0.9 ? t : 'globex', scopes), 100 + i)), expect: undefined });
  }
  return {
    name: 'API gateway (50 routes, JWT claims)',
    policy: 'api-gateway.rego',
    query: 'data.gateway.allow',
    packagePath: 'gateway',
    data: {},
    cases,
    handWritten: gatewayHandWritten,
    constants: ['data.gateway.routes'],
  };
}
