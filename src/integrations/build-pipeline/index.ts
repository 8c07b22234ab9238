// The build pipeline adapter (type: build_pipeline) serves at data.pipeline:
//   projects["<vcs>/<user>/<project>"]            the followed-project entry (branches, ...)
//   jobs["<vcs>/<user>/<project>"]["<branch>"][]  recent jobs of the branch, most recent first
//   tests["<vcs>/<user>/<project>"]["<build_num>"][] test metadata of finished jobs (tests: true)
// Projects are the configured ones, or every followed project; branches the configured
// ones, or those the followed-project entry lists.

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

export async function readPipeline(http: AdapterHttp, s: PipelineSettings): Promise<JSONValue> {
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
    for (const b of branches) byBranch[b] = await recentJobs(http, p, b, s.jobs);
    jobs[key] = byBranch;
    if (!s.tests) continue;
    const perBuild: Obj = {};
    for (const list of Object.values(byBranch) as JSONValue[][]) {
      for (const j of list) {
        if (!isObj(j) || typeof j['build_num'] !== 'number' || j['lifecycle'] !== 'finished') continue;
        const n = String(j['build_num']);
        if (n in perBuild) continue;
        const t = await testMetadata(http, p, j['build_num']);
        if (t !== undefined) perBuild[n] = t;
      }
    }
    tests[key] = perBuild;
  }
  const doc: Obj = { projects, jobs };
  if (s.tests) doc['tests'] = tests;
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
    return { read: (ctx) => readPipeline(ctx.http, settings) };
  },
};
