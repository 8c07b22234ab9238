// A stand-in for the build pipeline API v1.1 as the seed documents it: a token in the
// Ci-Token header, as HTTP Basic user, or (deprecated) as the ci-token query parameter —
// recorded so a test can show the adapter never uses the last; EDN when no Accept header
// is sent; followed projects; recent jobs per branch ordered by build_num with `limit`
// (max 100, default 30), `offset`, `filter` and `shallow`; test metadata; Cache-Control
// and ETag on the project list.

import { createHash } from 'node:crypto';
import type http from 'node:http';
import { httpServer, type TestHTTPServer } from '../../loopback.js';
import { applyFault, type Fault } from '../../plugins/adapters/stand-ins/faults.js';

type Obj = Record<string, any>;

export interface PipelineStandIn extends TestHTTPServer {
  token: string;
  /** Followed project entries. */
  projects: Obj[];
  /** Jobs by "vcs/user/project", any branch, any order. */
  jobs: Map<string, Obj[]>;
  tests: Map<string, Obj[]>;
  faults: Fault[];
  /** How each request presented its token: header, basic, query, or none. */
  auth: string[];
}

const SHALLOW = ['vcs_url', 'build_url', 'build_num', 'branch', 'vcs_revision', 'committer_name', 'committer_email', 'subject', 'body', 'why', 'dont_build', 'queued_at', 'start_time', 'stop_time', 'build_time_millis', 'username', 'reponame', 'lifecycle', 'outcome', 'status', 'retry_of', 'previous'];

const FILTERS: Record<string, (j: Obj) => boolean> = {
  completed: (j) => j['lifecycle'] === 'finished',
  successful: (j) => j['outcome'] === 'success',
  failed: (j) => j['outcome'] === 'failed',
  running: (j) => j['lifecycle'] === 'running',
};

/** A job with the documented summary fields. */
export function job(user: string, project: string, build_num: number, branch: string, o: Partial<Obj> = {}): Obj {
  return {
    vcs_url: `https://github.example/${user}/${project}`,
    build_url: `https://ci.example/gh/${user}/${project}/${build_num}`,
    build_num,
    branch,
    vcs_revision: `rev${build_num}`,
    subject: `commit ${build_num}`,
    body: '',
    why: 'github',
    username: user,
    reponame: project,
    vcs_type: 'github',
    vcs_tag: null,
    job_name: 'build',
    retry_of: null,
    parallel: 1,
    build_time_millis: 1000 + build_num,
    committer_name: 'Dev',
    committer_email: 'dev@example.com',
    queued_at: '2026-11-01T10:00:00Z',
    start_time: '2026-11-01T10:00:05Z',
    stop_time: '2026-11-01T10:01:05Z',
    lifecycle: 'finished',
    outcome: 'success',
    status: 'success',
    canceled: false,
    failed: false,
    timedout: false,
    oss: false,
    previous: build_num > 1 ? { build_num: build_num - 1, status: 'success' } : null,
    user: { is_user: true, login: 'dev', name: 'Dev', vcs_type: 'github', id: 7 },
    workflows: { job_name: 'build', job_id: `job-${build_num}`, workflow_id: 'wf', workspace_id: 'ws', upstream_job_ids: [], upstream_concurrency_map: {}, workflow_name: 'main' },
    steps: [{ name: 'checkout', actions: [{ name: 'checkout', exit_code: 0, status: 'success' }] }],
    ...o,
  };
}

function send(req: { headers: http.IncomingHttpHeaders }, res: http.ServerResponse, status: number, v: unknown, extra: Record<string, string> = {}): void {
  const accept = req.headers['accept'];
  if (!accept) {
    // the API's default: Clojure EDN
    res.writeHead(status, { 'content-type': 'application/edn', ...extra });
    return void res.end(Array.isArray(v) ? `[${v.map(() => '{:build_num 1}').join(' ')}]` : '{:message "edn"}');
  }
  res.writeHead(status, { 'content-type': 'application/json', ...extra });
  res.end(accept.includes('application/json') ? JSON.stringify(v) : JSON.stringify(v, null, 2));
}

export async function pipelineStandIn(token = 'ci-secret', port = 0): Promise<PipelineStandIn> {
  const s = (await httpServer(() => {}, port)) as PipelineStandIn;
  Object.assign(s, { token, projects: [], jobs: new Map(), tests: new Map(), faults: [], auth: [] });
  s.handler = (req, res) => {
    const url = new URL(req.url, 'http://x');
    let presented: string | undefined;
    if (req.headers['ci-token'] !== undefined) {
      s.auth.push('header');
      presented = String(req.headers['ci-token']);
    } else if (/^Basic /i.test(req.headers['authorization'] ?? '')) {
      s.auth.push('basic');
      presented = Buffer.from(req.headers['authorization']!.slice(6), 'base64').toString().replace(/:$/, '');
    } else if (url.searchParams.has('ci-token')) {
      s.auth.push('query');
      presented = url.searchParams.get('ci-token')!;
    } else s.auth.push('none');
    if (presented !== s.token) return send(req, res, 401, { message: 'You must log in first.' });
    if (applyFault(s.faults, res)) return;
    const path = url.pathname;
    if (path === '/api/v1.1/projects') {
      const body = JSON.stringify(s.projects);
      const etag = `"${createHash('sha1').update(body).digest('hex').slice(0, 12)}"`;
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag, 'cache-control': 'private, max-age=0' });
        return void res.end();
      }
      return send(req, res, 200, s.projects, { etag, 'cache-control': 'private, max-age=0' });
    }
    const tests = /^\/api\/v1\.1\/project\/([^/]+)\/([^/]+)\/([^/]+)\/(\d+)\/tests$/.exec(path);
    if (tests) {
      const t = s.tests.get(`${tests[1]}/${tests[2]}/${tests[3]}/${tests[4]}`);
      return t ? send(req, res, 200, { tests: t }) : send(req, res, 404, { message: 'Build not found' });
    }
    const list = /^\/api\/v1\.1\/project\/([^/]+)\/([^/]+)\/([^/]+)(?:\/tree\/([^/]+))?$/.exec(path);
    if (list) {
      const limit = Number(url.searchParams.get('limit') ?? 30);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) return send(req, res, 400, { message: 'limit must be between 1 and 100' });
      const filter = url.searchParams.get('filter');
      if (filter !== null && !FILTERS[filter]) return send(req, res, 400, { message: `unknown filter ${filter}` });
      const branch = list[4] === undefined ? undefined : decodeURIComponent(list[4]);
      let jobs = (s.jobs.get(`${list[1]}/${list[2]}/${list[3]}`) ?? []).filter((j) => branch === undefined || j['branch'] === branch);
      if (filter) jobs = jobs.filter(FILTERS[filter]!);
      // most recent first, by build_num
      jobs = [...jobs].sort((a, b) => b['build_num'] - a['build_num']).slice(offset, offset + limit);
      if (url.searchParams.get('shallow') === 'true') jobs = jobs.map((j) => Object.fromEntries(SHALLOW.filter((k) => k in j).map((k) => [k, j[k]])));
      else jobs = jobs.map(({ steps: _steps, ...summary }) => summary);
      return send(req, res, 200, jobs);
    }
    send(req, res, 404, { message: 'Not found' });
  };
  return s;
}

/** A followed-project entry listing the branches that have jobs. */
export function followed(user: string, project: string, branches: string[]): Obj {
  return {
    vcs_url: `https://github.example/${user}/${project}`,
    followed: true,
    username: user,
    reponame: project,
    branches: Object.fromEntries(branches.map((b) => [b, { pusher_logins: ['dev'], last_non_success: null, last_success: null, recent_builds: [], running_builds: [] }])),
  };
}
