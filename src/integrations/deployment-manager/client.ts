// The deployment manager API v2beta as the adapter reads it: deployments, their manifests
// and resources, IAM policies of deployments, operations, types and type providers of a
// project; every list followed through its page tokens (maxResults / pageToken /
// nextPageToken). Path segments (project, deployment, manifest) are percent-encoded.

import { AdapterHttpError, type AdapterHttp } from '../../plugins/adapters/http.js';
import type { JSONValue } from '../../plugins/adapters/types.js';
import { isObj } from '../../plugins/adapters/types.js';

export const API = '/deploymentmanager/v2beta/projects';

/** The largest page the lists accept (maxResults). */
export const MAX_PAGE = 500;

/** The IAM policy version asked for (3: bindings may carry conditions). */
export const IAM_POLICY_VERSION = 3;

export type Obj = Record<string, JSONValue>;

const enc = encodeURIComponent;
export const projectPath = (project: string): string => `${API}/${enc(project)}/global`;
export const deploymentPath = (project: string, deployment: string): string => `${projectPath(project)}/deployments/${enc(deployment)}`;

/**
 * One list through its pages; `field` holds the items of each page. With `limit`, paging
 * stops once that many items were read (and the result is cut to it).
 */
async function list(http: AdapterHttp, path: string, field: string, pageSize: number, query: Record<string, string> = {}, limit?: number): Promise<Obj[]> {
  let read = 0;
  const out = await http.pages(async (pageToken) => {
    const maxResults = Math.min(pageSize, MAX_PAGE, limit === undefined ? MAX_PAGE : Math.max(1, limit - read));
    const j = (await http.json({ path, query: { ...query, maxResults, pageToken } })).json;
    if (!isObj(j) || (j[field] !== undefined && !Array.isArray(j[field]))) throw new AdapterHttpError(`GET ${path}: the answer has no ${field} list`);
    const items = ((j[field] ?? []) as JSONValue[]).filter(isObj);
    read += items.length;
    const next = typeof j['nextPageToken'] === 'string' && j['nextPageToken'] !== '' && (limit === undefined || read < limit) ? j['nextPageToken'] : undefined;
    return { items, next };
  });
  return limit === undefined ? out : out.slice(0, limit);
}

export function deployments(http: AdapterHttp, project: string, pageSize: number): Promise<Obj[]> {
  return list(http, `${projectPath(project)}/deployments`, 'deployments', pageSize);
}

export function manifests(http: AdapterHttp, project: string, deployment: string, pageSize: number): Promise<Obj[]> {
  return list(http, `${deploymentPath(project, deployment)}/manifests`, 'manifests', pageSize);
}

export async function manifest(http: AdapterHttp, project: string, deployment: string, name: string): Promise<Obj> {
  const path = `${deploymentPath(project, deployment)}/manifests/${enc(name)}`;
  const j = (await http.json({ path })).json;
  if (!isObj(j)) throw new AdapterHttpError(`GET ${path}: the answer is not a manifest object`);
  return j;
}

export function resources(http: AdapterHttp, project: string, deployment: string, pageSize: number): Promise<Obj[]> {
  return list(http, `${deploymentPath(project, deployment)}/resources`, 'resources', pageSize);
}

export async function iamPolicy(http: AdapterHttp, project: string, deployment: string): Promise<Obj> {
  const path = `${deploymentPath(project, deployment)}/getIamPolicy`;
  const j = (await http.json({ path, query: { optionsRequestedPolicyVersion: IAM_POLICY_VERSION } })).json;
  if (!isObj(j)) throw new AdapterHttpError(`GET ${path}: the answer is not a policy object`);
  return j;
}

/** The most recent operations first, at most `limit` of them. */
export function operations(http: AdapterHttp, project: string, pageSize: number, limit: number): Promise<Obj[]> {
  return list(http, `${projectPath(project)}/operations`, 'operations', pageSize, { orderBy: 'creationTimestamp desc' }, limit);
}

export function types(http: AdapterHttp, project: string, pageSize: number): Promise<Obj[]> {
  return list(http, `${projectPath(project)}/types`, 'types', pageSize);
}

export function typeProviders(http: AdapterHttp, project: string, pageSize: number): Promise<Obj[]> {
  return list(http, `${projectPath(project)}/typeProviders`, 'typeProviders', pageSize);
}

/** The manifest name a deployment's `manifest` field (a URL, or a bare name) points at. */
export function manifestName(ref: JSONValue | undefined): string | undefined {
  if (typeof ref !== 'string' || ref === '') return undefined;
  const last = ref.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop();
  if (!last) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** Whether an error says the caller may not read this (403) or it is gone (404). */
export function isNoAccess(e: unknown): e is AdapterHttpError {
  return e instanceof AdapterHttpError && (e.httpCode === 403 || e.httpCode === 404);
}
