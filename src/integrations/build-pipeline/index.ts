// The build pipeline adapter (type: build_pipeline) serves at data.pipeline:
//   projects["<vcs>/<user>/<project>"]            the followed-project entry (branches, ...)
//   jobs["<vcs>/<user>/<project>"]["<branch>"][]  recent jobs of the branch, most recent first
//   tests["<vcs>/<user>/<project>"]["<build_num>"][] test metadata of finished jobs (tests: true)
// Projects are the configured ones, or every followed project; branches the configured
// ones, or those the followed-project entry lists; a project with neither has its recent
// jobs (the project summary) under the key "" (every branch). A finished job's tests do
// not change: they are read once and kept from the previous document. A webhook event
// (forEvent) reads the tests of its job before the job is decided.

import { fail, Section } from '../../plugins/config/section.js';
import type { AdapterHttp } from '../../plugins/adapters/http.js';
import type { AdapterType, DataSource, JSONValue } from '../../plugins/adapters/types.js';
import { followedProjects, MAX_LIMIT, recentJobs, testMetadata, type JobQuery, type ProjectRef } from './client.js';
import { isObj } from '../../plugins/adapters/types.js';

export interface PipelineSettings {
  projects?: (ProjectRef & { branches?: string[] })[];
  jobs: JobQuery;
  tests: boolean;
}

type Obj = Record<string, JSONValue>;

export const projectKey = (p: ProjectRef): string => `${p.vcs_type}/${p.username}/${p.project}`;

/** The vcs type of a followed-project entry: from its vcs_url host (github.com -> github). */
function refOfEntry(e: Obj, fallbackVcs: string): ProjectRef | undefined {
  const user = e['username'];
  const repo = e['reponame'];
  if (typeof user !== 'string' || typeof repo !== 'string') return undefined;
  const host = typeof e['vcs_url'] === 'string' ? /^[a-z]+:\/\/(?:www\.)?([^./]+)/.exec(e['vcs_url'])?.[1] : undefined;
  const vcs = typeof e['vcs_type'] === 'string' ? e['vcs_type'] : (host ?? fallbackVcs);
  return { vcs_type: vcs, username: user, project: repo };
}

/** The tests the previous document holds for a project's job (finished jobs' tests never change). */
function knownTests(previous: JSONValue | undefined, key: string, n: string): JSONValue | undefined {
  if (!isObj(previous) || !isObj(previous['tests'])) return undefined;
  const p = previous['tests'][key];
  return isObj(p) ? p[n] : undefined;
}

/** Jobs in the documented order: build_num, highest first. */
const byBuildNum = (jobs: JSONValue[]): JSONValue[] => [...jobs].sort((a, b) => num(b) - num(a));
const num = (j: JSONValue): number => (isObj(j) && typeof j['build_num'] === 'number' ? j['build_num'] : -Infinity);

/**
 * Finished jobs the service has no tests for (404), as "<project>/<build_num>": not asked
 * again while they stay in the recent lists (each read keeps only the jobs it saw).
 */
export type NoTests = Set<string>;

export async function readPipeline(http: AdapterHttp, s: PipelineSettings, previous?: JSONValue, noTests: NoTests = new Set()): Promise<JSONValue> {
  const sawNoTests: NoTests = new Set();
  const followed = await followedProjects(http);
  const projects: Obj = {};
  const targets: (ProjectRef & { branches?: string[] })[] = [];
  for (const e of followed) {
    if (!isObj(e)) continue;
    const ref = refOfEntry(e, s.projects?.[0]?.vcs_type ?? 'github');
    if (!ref) continue;
    projects[projectKey(ref)] = e;
    if (!s.projects) targets.push({ ...ref, branches: isObj(e['branches']) ? Object.keys(e['branches']) : undefined });
  }
  if (s.projects) targets.push(...s.projects);
  const jobs: Obj = {};
  const tests: Obj = {};
  for (const p of targets) {
    const byBranch: Obj = {};
    const key = projectKey(p);
    const branches = p.branches ?? (isObj(projects[key]) && isObj((projects[key] as Obj)['branches']) ? Object.keys((projects[key] as Obj)['branches'] as Obj) : []);
    for (const b of branches) byBranch[b] = byBuildNum(await recentJobs(http, p, b, s.jobs));
    // no branch known: the project's recent jobs, any branch
    if (!branches.length) byBranch[''] = byBuildNum(await recentJobs(http, p, undefined, s.jobs));
    jobs[key] = byBranch;
    if (!s.tests) continue;
    const perBuild: Obj = {};
    for (const list of Object.values(byBranch) as JSONValue[][]) {
      for (const j of list) {
        if (!isObj(j) || typeof j['build_num'] !== 'number' || j['lifecycle'] !== 'finished') continue;
        const n = String(j['build_num']);
        if (n in perBuild) continue;
        if (noTests.has(`${key}/${n}`)) {
          sawNoTests.add(`${key}/${n}`);
          continue;
        }
        const t = knownTests(previous, key, n) ?? (await testMetadata(http, p, j['build_num']));
        if (t !== undefined) perBuild[n] = t;
        else sawNoTests.add(`${key}/${n}`);
      }
    }
    tests[key] = perBuild;
  }
  noTests.clear();
  for (const k of sawNoTests) noTests.add(k);
  const doc: Obj = { projects, jobs };
  if (s.tests) doc['tests'] = tests;
  return doc;
}

/**
 * The document with what a webhook's job needs to be decided: the job in its branch's list
 * and, when it finished, its tests read now. Undefined when the document has them already,
 * or the job is not one of a project the adapter serves.
 */
export async function pipelineForEvent(http: AdapterHttp, s: PipelineSettings, previous: JSONValue, event: JSONValue): Promise<JSONValue | undefined> {
  const job = isObj(event) && isObj(event['payload']) ? event['payload'] : undefined;
  if (!job || !isObj(previous) || !isObj(previous['jobs'])) return undefined;
  const { vcs_type, username, reponame, build_num, branch } = job;
  if (typeof username !== 'string' || typeof reponame !== 'string' || typeof build_num !== 'number') return undefined;
  const ref: ProjectRef = { vcs_type: typeof vcs_type === 'string' ? vcs_type : 'github', username, project: reponame };
  const key = projectKey(ref);
  const served = s.projects ? s.projects.some((p) => projectKey(p) === key) : isObj(previous['projects']) && key in previous['projects'];
  if (!served) return undefined;
  const n = String(build_num);
  const finished = job['lifecycle'] === 'finished';
  const needTests = s.tests && finished && knownTests(previous, key, n) === undefined;
  const jobsOf = isObj(previous['jobs'][key]) ? (previous['jobs'][key] as Obj) : {};
  // the job joins its branch's list when the document tracks that branch (or the whole project)
  const b = typeof branch === 'string' && branch in jobsOf ? branch : '' in jobsOf ? '' : undefined;
  const list = b !== undefined && Array.isArray(jobsOf[b]) ? (jobsOf[b] as JSONValue[]) : [];
  const needJob = b !== undefined && !list.some((j) => num(j) === build_num);
  if (!needTests && !needJob) return undefined;
  const doc: Obj = { ...previous };
  if (needJob) doc['jobs'] = { ...previous['jobs'], [key]: { ...jobsOf, [b!]: byBuildNum([job, ...list]) } };
  if (needTests) {
    const t = await testMetadata(http, ref, build_num);
    if (t !== undefined) {
      const all = isObj(previous['tests']) ? previous['tests'] : {};
      doc['tests'] = { ...all, [key]: { ...(isObj(all[key]) ? all[key] : {}), [n]: t } };
    }
  }
  return doc;
}

export const buildPipeline: AdapterType<PipelineSettings> = {
  kind: 'data',
  defaultRoot: 'pipeline',
  settings(s: Section): PipelineSettings {
    const j = s.sub('jobs');
    const limit = j.int('limit') ?? 30;
    if (limit < 1 || limit > MAX_LIMIT) fail(`${j.key}.limit`, `must be between 1 and ${MAX_LIMIT} (the API's maximum)`);
    const filter = j.str('filter');
    if (filter !== undefined && !['completed', 'successful', 'failed', 'running'].includes(filter)) fail(`${j.key}.filter`, `"${filter}" is not one of completed, successful, failed, running`);
    const jobs: JobQuery = { limit, pages: j.int('pages') ?? 1, filter: filter as JobQuery['filter'], shallow: j.bool('shallow', false) };
    j.done();
    let projects: PipelineSettings['projects'];
    const raw = s.raw('projects');
    if (raw !== undefined) {
      if (!Array.isArray(raw)) fail(`${s.key}.projects`, 'expected a list');
      projects = raw.map((x, i) => {
        const ps = Section.of(`${s.key}.projects[${i}]`, x);
        const out = { vcs_type: ps.reqStr('vcs_type'), username: ps.reqStr('username'), project: ps.reqStr('project'), branches: ps.strList('branches') };
        ps.done();
        return out;
      });
    }
    return { projects, jobs, tests: s.bool('tests', false) };
  },
  data(settings: PipelineSettings): DataSource {
    const noTests: NoTests = new Set();
    return {
      read: (ctx) => readPipeline(ctx.http, settings, ctx.previous, noTests),
      forEvent: (ctx, event) => pipelineForEvent(ctx.http, settings, ctx.previous, event),
    };
  },
};
