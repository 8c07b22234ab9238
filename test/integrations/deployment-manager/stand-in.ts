// A stand-in for the deployment manager API v2beta as the adapter uses it: a bearer token
// (401 without it), per project the deployments with their manifests, resources and IAM
// policies, operations (by name, or newest first with orderBy=creationTimestamp desc),
// types and type providers. Every list pages with maxResults (at most 500) / pageToken /
// nextPageToken, in pages of at most `pageSize`; faults come first (stand-ins/faults.ts).

import { httpServer, type TestHTTPServer } from '../../loopback.js';
import { applyFault, type Fault } from '../../plugins/adapters/stand-ins/faults.js';

type Obj = Record<string, any>;

export interface StandInProject {
  deployments: Obj[];
  /** By deployment name. */
  manifests: Map<string, Obj[]>;
  resources: Map<string, Obj[]>;
  iam: Map<string, Obj>;
  operations: Obj[];
  types: Obj[];
  typeProviders: Obj[];
}

export interface DeploymentsStandIn extends TestHTTPServer {
  token: string;
  projects: Map<string, StandInProject>;
  pageSize: number;
  faults: Fault[];
  /** Deployments whose getIamPolicy answers 403. */
  iamForbidden: Set<string>;
}

export const BASE = '/deploymentmanager/v2beta/projects';

export function emptyProject(): StandInProject {
  return { deployments: [], manifests: new Map(), resources: new Map(), iam: new Map(), operations: [], types: [], typeProviders: [] };
}

let seq = 1000;

/** A deployment with its manifest, resources and IAM policy, added to the project. */
export function addDeployment(s: DeploymentsStandIn, project: string, name: string, o: { labels?: Record<string, string>; resources?: Obj[]; bindings?: Obj[]; manifests?: number; update?: Obj } = {}): Obj {
  const p = s.projects.get(project) ?? (s.projects.set(project, emptyProject()), s.projects.get(project)!);
  const id = String(++seq);
  const count = o.manifests ?? 1;
  const manifests = Array.from({ length: count }, (_, i) => ({
    id: `${id}${i}`,
    name: `manifest-${id}-${i + 1}`,
    selfLink: `${s.url}${BASE}/${project}/global/deployments/${name}/manifests/manifest-${id}-${i + 1}`,
    insertTime: `2026-11-0${i + 1}T10:00:00.000-07:00`,
    config: { content: `resources:\n- name: r${i + 1}\n  type: compute.v1.instance\n` },
    expandedConfig: `resources:\n- name: r${i + 1}\n  type: compute.v1.instance\n  properties: {}\n`,
    imports: [],
    layout: `resources:\n- name: r${i + 1}\n  type: compute.v1.instance\n`,
  }));
  const current = manifests[manifests.length - 1]!;
  const d: Obj = {
    id,
    name,
    description: `deployment ${name}`,
    fingerprint: Buffer.from(`fp-${id}`).toString('base64'),
    manifest: current.selfLink,
    operation: { kind: 'deploymentmanager#operation', name: `operation-${id}`, operationType: 'insert', status: 'DONE', progress: 100, user: 'deployer@example.com', insertTime: '2026-11-01T10:00:00.000-07:00' },
    labels: Object.entries(o.labels ?? {}).map(([key, value]) => ({ key, value })),
    insertTime: '2026-11-01T10:00:00.000-07:00',
    selfLink: `${s.url}${BASE}/${project}/global/deployments/${name}`,
    ...(o.update ? { update: o.update } : {}),
  };
  p.deployments.push(d);
  p.manifests.set(name, manifests);
  p.resources.set(
    name,
    (o.resources ?? []).map((r, i) => ({ id: `${id}${i}`, url: `https://compute.example/${project}/${r['name']}`, manifest: current.selfLink, finalProperties: 'zone: us-central1-a\n', properties: 'zone: us-central1-a\n', ...r })),
  );
  p.iam.set(name, { version: 1, etag: 'BwXz', bindings: o.bindings ?? [] });
  return d;
}

function page(items: Obj[], url: URL, pageSize: number): { items: Obj[]; next?: string } {
  const asked = Number(url.searchParams.get('maxResults') ?? 500);
  if (!Number.isInteger(asked) || asked < 0 || asked > 500) throw Object.assign(new Error('Invalid value for field maxResults: must be between 0 and 500'), { status: 400 });
  const size = Math.min(asked || 500, pageSize);
  const token = url.searchParams.get('pageToken');
  const offset = token === null ? 0 : Number(/^tok(\d+)$/.exec(token)?.[1] ?? NaN);
  if (!Number.isInteger(offset)) throw Object.assign(new Error('Invalid page token'), { status: 400 });
  const slice = items.slice(offset, offset + size);
  return offset + size < items.length ? { items: slice, next: `tok${offset + size}` } : { items: slice };
}

function send(res: import('node:http').ServerResponse, status: number, v: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(v));
}

const error = (code: number, message: string): Obj => ({ error: { code, message, errors: [{ domain: 'global', reason: code === 404 ? 'notFound' : 'forbidden', message }] } });

export async function deploymentsStandIn(token = 'dm-secret'): Promise<DeploymentsStandIn> {
  const s = (await httpServer(() => {})) as DeploymentsStandIn;
  Object.assign(s, { token, projects: new Map(), pageSize: 2, faults: [], iamForbidden: new Set() });
  s.handler = (req, res) => {
    if (req.headers['authorization'] !== `Bearer ${s.token}`) return send(res, 401, error(401, 'Request is missing required authentication credential.'));
    if (applyFault(s.faults, res)) return;
    const url = new URL(req.url, 'http://x');
    if (req.method !== 'GET' || !url.pathname.startsWith(BASE + '/')) return send(res, 404, error(404, 'Not Found'));
    const parts = url.pathname.slice(BASE.length + 1).split('/').map(decodeURIComponent);
    const p = s.projects.get(parts[0]!);
    if (!p || parts[1] !== 'global') return send(res, 404, error(404, `The resource 'projects/${parts[0]}' was not found`));
    const list = (field: string, items: Obj[]): void => {
      const { items: got, next } = page(items, url, s.pageSize);
      send(res, 200, { [field]: got, ...(next ? { nextPageToken: next } : {}) });
    };
    try {
      const [, , kind, name, sub, subName] = parts;
      if (kind === 'deployments' && name === undefined) return list('deployments', p.deployments);
      if (kind === 'deployments') {
        const d = p.deployments.find((x) => x['name'] === name);
        if (!d) return send(res, 404, error(404, `The object 'projects/${parts[0]}/global/deployments/${name}' is not found.`));
        if (sub === undefined) return send(res, 200, d);
        if (sub === 'getIamPolicy' && subName === undefined) {
          if (s.iamForbidden.has(name!)) return send(res, 403, error(403, `Permission denied on deployment ${name}`));
          return send(res, 200, p.iam.get(name!) ?? { etag: 'ACAB' });
        }
        if (sub === 'manifests') {
          const ms = p.manifests.get(name!) ?? [];
          if (subName === undefined) return list('manifests', ms);
          const m = ms.find((x) => x['name'] === subName);
          return m ? send(res, 200, m) : send(res, 404, error(404, `manifest ${subName} not found`));
        }
        if (sub === 'resources' && subName === undefined) return list('resources', p.resources.get(name!) ?? []);
      }
      if (kind === 'operations' && name === undefined) {
        const order = url.searchParams.get('orderBy');
        if (order !== null && order !== 'creationTimestamp desc') return send(res, 400, error(400, `Invalid orderBy ${order}`));
        const ops = [...p.operations].sort(order ? (a, b) => Date.parse(b['insertTime']) - Date.parse(a['insertTime']) : (a, b) => (a['name'] < b['name'] ? -1 : 1));
        return list('operations', ops);
      }
      if (kind === 'types' && name === undefined) return list('types', p.types);
      if (kind === 'typeProviders' && name === undefined) return list('typeProviders', p.typeProviders);
    } catch (e) {
      return send(res, (e as Obj)['status'] ?? 500, error((e as Obj)['status'] ?? 500, (e as Error).message));
    }
    send(res, 404, error(404, 'Not Found'));
  };
  return s;
}
