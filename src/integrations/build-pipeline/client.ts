// The build pipeline API v1.1 as the adapter reads it. The token goes in the Ci-Token
// header (never the deprecated query parameter); every request asks for JSON, since the
// API answers EDN otherwise (AdapterHttp turns an EDN answer into an error, not data).

import { AdapterHttpError, type AdapterHttp } from '../../plugins/adapters/http.js';
import type { JSONValue } from '../../plugins/adapters/types.js';

export const API = '/api/v1.1';
/** The documented maximum of `limit`. */
export const MAX_LIMIT = 100;

export interface ProjectRef {
  vcs_type: string;
  username: string;
  project: string;
}

export interface JobQuery {
  limit: number;
  /** Pages of `limit` jobs read per branch (offset 0, limit, 2*limit, ...). */
  pages: number;
  filter?: 'completed' | 'successful' | 'failed' | 'running';
  shallow: boolean;
}

const enc = encodeURIComponent;

export const projectPath = (p: ProjectRef): string => `${API}/project/${enc(p.vcs_type)}/${enc(p.username)}/${enc(p.project)}`;

async function get(http: AdapterHttp, path: string, query?: Record<string, string | number | boolean | undefined>): Promise<JSONValue> {
  return (await http.json({ path, query, tokenHeader: 'Ci-Token' })).json;
}

function list(v: JSONValue, what: string): JSONValue[] {
  if (!Array.isArray(v)) throw new Error(`${what}: expected a list, got ${v === null ? 'null' : typeof v}`);
  return v;
}

export async function followedProjects(http: AdapterHttp): Promise<JSONValue[]> {
  return list(await get(http, `${API}/projects`), 'GET /projects');
}

/** Recent jobs of a branch (or of the project when branch is undefined), most recent first. */
export async function recentJobs(http: AdapterHttp, p: ProjectRef, branch: string | undefined, q: JobQuery): Promise<JSONValue[]> {
  const path = branch === undefined ? projectPath(p) : `${projectPath(p)}/tree/${enc(branch)}`;
  const out: JSONValue[] = [];
  for (let page = 0; page < q.pages; page++) {
    const jobs = list(await get(http, path, { limit: q.limit, offset: page * q.limit, filter: q.filter, shallow: q.shallow || undefined }), `GET ${path}`);
    out.push(...jobs);
    if (jobs.length < q.limit) break;
  }
  return out;
}

/** The tests of a job; undefined when the service has none for it (404). */
export async function testMetadata(http: AdapterHttp, p: ProjectRef, buildNum: number): Promise<JSONValue | undefined> {
  let v: JSONValue;
  try {
    v = await get(http, `${projectPath(p)}/${buildNum}/tests`);
  } catch (e) {
    if (e instanceof AdapterHttpError && e.httpCode === 404) return undefined;
    throw e;
  }
  const tests = v && typeof v === 'object' && !Array.isArray(v) ? v['tests'] : undefined;
  if (!Array.isArray(tests)) throw new Error(`GET ${projectPath(p)}/${buildNum}/tests: the answer has no tests list`);
  return tests;
}
