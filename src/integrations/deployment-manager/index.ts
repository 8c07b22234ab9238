// The deployment manager adapter (type: deployment_manager) serves at data.deployments:
//   projects[p].deployments[name] = {
//     deployment,                the Deployment (fingerprint, labels, operation, update, ...)
//     manifest,                  its current Manifest (manifests: latest or all; null if none)
//     manifests{name: Manifest}, every manifest of the deployment (manifests: all)
//     resources{name: Resource}, with their pending `update` {intent, state, ...}
//     iam                        its IAM Policy {version, etag, bindings} (iam: true)
//   }
//   projects[p].operations[]          the most recent operations, newest first (operations_limit)
//   projects[p].types[]               types, by name (types: true)
//   projects[p].type_providers{name}  type providers (type_providers: true)
//   errors[]                          {project, deployment?, what, message}: parts the
//                                     credentials may not read (403) or that vanished (404)
// Any other failure fails the read (and the last good document stays).

import { fail, type Section } from '../../plugins/config/section.js';
import type { AdapterHttp } from '../../plugins/adapters/http.js';
import type { AdapterType, DataSource, JSONValue } from '../../plugins/adapters/types.js';
import { deployments, iamPolicy, isNoAccess, manifest, manifestName, manifests, MAX_PAGE, operations, resources, typeProviders, types, type Obj } from './client.js';
import { pool } from '../../plugins/adapters/pool.js';

export type ManifestMode = 'latest' | 'all' | 'none';

export interface DeploymentSettings {
  projects: string[];
  manifests: ManifestMode;
  /** Most recent operations kept per project (0: none read). */
  operations_limit: number;
  iam: boolean;
  types: boolean;
  type_providers: boolean;
  /** maxResults of each list request (at most 500). */
  page_size: number;
}

/** Deployments read at the same time. */
const CONCURRENCY = 4;


const str = (v: JSONValue | undefined): string => (typeof v === 'string' ? v : '');
const byName = (a: Obj, b: Obj): number => (str(a['name']) < str(b['name']) ? -1 : str(a['name']) > str(b['name']) ? 1 : 0);

/** Items keyed by name, in name order (items without a name are dropped). */
function keyed(items: Obj[]): Record<string, JSONValue> {
  return Object.fromEntries([...items].filter((x) => typeof x['name'] === 'string').sort(byName).map((x) => [x['name'] as string, x]));
}

async function readDeployment(http: AdapterHttp, project: string, d: Obj, s: DeploymentSettings, errors: Obj[]): Promise<Obj> {
  const name = d['name'] as string;
  const out: Obj = { deployment: d };
  const soft = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (e) {
      if (!isNoAccess(e)) throw e;
      errors.push({ project, deployment: name, what, message: e.message });
      return undefined;
    }
  };
  if (s.manifests !== 'none') {
    const current = manifestName(d['manifest']);
    if (s.manifests === 'all') {
      const all = (await soft('manifests', () => manifests(http, project, name, s.page_size))) ?? [];
      out['manifests'] = keyed(all);
      out['manifest'] = (current !== undefined ? all.find((m) => m['name'] === current) : undefined) ?? null;
    } else {
      out['manifest'] = current === undefined ? null : ((await soft('manifest', () => manifest(http, project, name, current))) ?? null);
    }
  }
  const rs = await soft('resources', () => resources(http, project, name, s.page_size));
  out['resources'] = rs ? keyed(rs) : {};
  if (s.iam) {
    const p = await soft('iam', () => iamPolicy(http, project, name));
    if (p) out['iam'] = p;
  }
  return out;
}

export async function readDeployments(http: AdapterHttp, s: DeploymentSettings): Promise<JSONValue> {
  const projects: Obj = {};
  const errors: Obj[] = [];
  for (const project of [...new Set(s.projects)].sort()) {
    const list = (await deployments(http, project, s.page_size)).filter((d) => typeof d['name'] === 'string').sort(byName);
    const read = new Map<string, Obj>();
    await pool(list, CONCURRENCY, async (d) => void read.set(d['name'] as string, await readDeployment(http, project, d, s, errors)));
    const byDeployment: Obj = Object.fromEntries(list.map((d) => [d['name'] as string, read.get(d['name'] as string)!]));
    const p: Obj = { deployments: byDeployment };
    p['operations'] = s.operations_limit > 0 ? await operations(http, project, s.page_size, s.operations_limit) : [];
    if (s.types) p['types'] = (await types(http, project, s.page_size)).sort(byName);
    if (s.type_providers) p['type_providers'] = keyed(await typeProviders(http, project, s.page_size));
    projects[project] = p;
  }
  const key = (e: Obj): string => [e['project'], e['deployment'], e['what']].map(str).join('\0');
  return { projects, errors: errors.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)) };
}

const MODES: ManifestMode[] = ['latest', 'all', 'none'];

export const deploymentManager: AdapterType<DeploymentSettings> = {
  kind: 'data',
  defaultRoot: 'deployments',
  settings(s: Section): DeploymentSettings {
    const projects = s.strList('projects');
    if (!projects?.length) fail(`${s.key}.projects`, 'missing required value: the project ids to read');
    projects.forEach((p, i) => {
      // project ids: 6-30 lowercase letters, digits and hyphens (domain-scoped ids carry "domain:")
      if (!/^([a-z0-9.-]+:)?[a-z][a-z0-9-]*$/.test(p)) fail(`${s.key}.projects[${i}]`, `"${p}" is not a project id`);
    });
    const mode = s.str('manifests') ?? 'latest';
    if (!(MODES as string[]).includes(mode)) fail(`${s.key}.manifests`, `"${mode}" is not one of ${MODES.join(', ')}`);
    const page_size = s.int('page_size') ?? MAX_PAGE;
    if (page_size < 1 || page_size > MAX_PAGE) fail(`${s.key}.page_size`, `must be between 1 and ${MAX_PAGE} (the API's maximum)`);
    return {
      projects,
      manifests: mode as ManifestMode,
      operations_limit: s.int('operations_limit') ?? 50,
      iam: s.bool('iam', true),
      types: s.bool('types', true),
      type_providers: s.bool('type_providers', true),
      page_size,
    };
  },
  data(settings: DeploymentSettings): DataSource {
    return { read: (ctx) => readDeployments(ctx.http, settings) };
  },
};
