// ABAC: subject, resource and environment attributes; clearance levels, departments,
// business hours (UTC) on weekdays, network and MFA.

import { rng } from '../lib/stats.js';
import type { Scenario } from './types.js';

const CLEARANCE: Record<string, number> = { public: 0, internal: 1, confidential: 2, secret: 3, top_secret: 4 };
const ACTIONS_BY_ROLE: Record<string, Set<string>> = {
  viewer: new Set(['read']),
  editor: new Set(['read', 'write']),
  manager: new Set(['read', 'write', 'approve']),
  auditor: new Set(['read', 'export']),
};
const DEPTS = ['finance', 'sales', 'engineering', 'hr', 'legal'];

interface Opts {
  role: string;
  clearance: string;
  dept: string;
  suspended?: boolean;
  groups?: string[];
  action: string;
  classification: string;
  rdept: string;
  shared?: string[];
  time: string;
  network: string;
  mfa: boolean;
}

function input(o: Opts, i: number): Record<string, unknown> {
  return {
    subject: {
      id: `user-${i}`,
      attributes: {
        role: o.role,
        clearance: o.clearance,
        department: o.dept,
        ...(o.suspended !== undefined ? { suspended: o.suspended } : {}),
        groups: o.groups ?? ['staff', `${o.dept}-all`],
        location: { country: 'DE', site: 'berlin-2' },
        employee_since: '2019-04-01',
      },
    },
    action: o.action,
    resource: {
      id: `doc-${i}`,
      attributes: {
        classification: o.classification,
        department: o.rdept,
        shared_with: o.shared ?? [],
        owner: `user-${(i * 13) % 500}`,
        created: '2024-01-15T08:00:00Z',
        labels: { project: 'apollo', retention: '7y' },
      },
    },
    environment: { time: o.time, network: o.network, mfa: o.mfa, ip: `192.168.${i % 256}.10`, device: { managed: true, os: 'linux' } },
  };
}

function own<T>(o: Record<string, T>, k: unknown): T | undefined {
  return typeof k === 'string' && Object.hasOwn(o, k) ? o[k] : undefined;
}

export function abacHandWritten(): (json: string) => boolean {
  return (json) => {
    const input = JSON.parse(json);
    const user = input.subject?.attributes;
    const res = input.resource?.attributes;
    const env = input.environment;
    if (!user || !res) return false;
    if (user.suspended !== undefined && user.suspended !== false) return false;
    if (!own(ACTIONS_BY_ROLE, user.role)?.has(input.action)) return false;
    const cu = own(CLEARANCE, user.clearance);
    const cr = own(CLEARANCE, res.classification);
    if (cu === undefined || cr === undefined || cu < cr) return false;
    const deptOk =
      (user.department !== undefined && user.department === res.department) ||
      (Array.isArray(res.shared_with) && res.shared_with.includes(user.department)) ||
      (res.classification === 'public' && input.action === 'read');
    if (!deptOk) return false;
    let timeOk = Array.isArray(user.groups) && user.groups.includes('on-call');
    if (!timeOk && typeof env?.time === 'string') {
      const d = new Date(env.time);
      const h = d.getUTCHours();
      const wd = d.getUTCDay();
      timeOk = !Number.isNaN(h) && h >= 7 && h < 19 && wd !== 0 && wd !== 6;
    }
    if (!timeOk) return false;
    return env?.network === 'corporate' || (env?.network === 'vpn' && env?.mfa === true) || (cr <= 1 && env?.mfa === true);
  };
}

export function abacScenario(): Scenario {
  const base: Opts = {
    role: 'editor', clearance: 'confidential', dept: 'finance', action: 'write', classification: 'internal',
    rdept: 'finance', time: '2024-06-12T09:30:00Z', network: 'corporate', mfa: true,
  };
  const fixed: [Partial<Opts>, boolean][] = [
    [{}, true],
    [{ suspended: true }, false],
    [{ suspended: false }, true],
    [{ action: 'approve' }, false], // editors cannot approve
    [{ role: 'manager', action: 'approve' }, true],
    [{ classification: 'secret' }, false], // clearance too low
    [{ rdept: 'hr' }, false],
    [{ rdept: 'hr', shared: ['legal', 'finance'] }, true],
    [{ rdept: 'hr', classification: 'public', action: 'read' }, true],
    [{ time: '2024-06-12T21:30:00Z' }, false], // after hours
    [{ time: '2024-06-12T21:30:00Z', groups: ['staff', 'on-call'] }, true],
    [{ time: '2024-06-15T10:00:00Z' }, false], // Saturday
    [{ network: 'vpn', mfa: true }, true],
    [{ network: 'vpn', mfa: false }, false],
    [{ network: 'home', mfa: true, classification: 'internal' }, true],
    [{ network: 'home', mfa: true, classification: 'confidential' }, false],
    [{ role: 'contractor' }, false],
    [{ clearance: 'unknown' }, false],
  ];
  const cases: Scenario['cases'] = fixed.map(([o, expect], i) => ({ json: JSON.stringify(input({ ...base, ...o }, i)), expect }));
  const r = rng(11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  for (let i = 0; i < 60; i++) {
    const o: Opts = {
      role: pick(['viewer', 'editor', 'manager', 'auditor']),
      clearance: pick(Object.keys(CLEARANCE)),
      dept: pick(DEPTS),
      action: pick(['read', 'write', 'approve', 'export']),
      classification: pick(['public', 'internal', 'confidential', 'secret']),
      rdept: pick(DEPTS),
      shared: r() < 0.3 ? [pick(DEPTS), pick(DEPTS)] : [],
      groups: r() < 0.1 ? ['staff', 'on-call'] : undefined,
      time: `2024-06-${String(10 + Math.floor(r() * 7))}T${String(Math.floor(r() * 24)).padStart(2, '0')}:15:00Z`,
      network: pick(['corporate', 'vpn', 'home']),
      mfa: r() < 0.7,
    };
    cases.push({ json: JSON.stringify(input(o, 100 + i)), expect: undefined });
  }
  return {
    name: 'ABAC (clearance, department, time, network)',
    policy: 'abac.rego',
    query: 'data.abac.allow',
    packagePath: 'abac',
    data: {},
    cases,
    handWritten: abacHandWritten,
  };
}
