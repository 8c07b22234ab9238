// A stand-in for the file storage API v2 (`/drive/v2`) as Google Drive v2 users know it:
// a Bearer token (401 otherwise); files.list over pages (maxResults, pageToken, corpora,
// driveId, includeItemsFromAllDrives needing supportsAllDrives, a small `q` language);
// files.get; permissions and revisions of a file (shared-drive files answer 404 without
// supportsAllDrives, folders have no revisions: 403); permissionIds/{email}; shared drives;
// a change log behind changes/startPageToken and changes (paged, latest change per item,
// newStartPageToken on the last page; unknown tokens 400, forgotten ones 410); watch
// channels. Every mutation helper writes the change log, as the real service does.

import { createHash } from 'node:crypto';
import type http from 'node:http';
import { httpServer, type TestHTTPServer } from '../../loopback.js';
import { applyFault, type Fault } from '../../plugins/adapters/stand-ins/faults.js';

type Obj = Record<string, any>;

export const FOLDER = 'application/vnd.google-apps.folder';

interface LogEntry {
  seq: number;
  type: 'file' | 'drive';
  id: string;
  /** The shared drive of the file at the time (feeds of one drive see only its items). */
  driveId?: string;
}

export interface DriveStandIn extends TestHTTPServer {
  token: string;
  files: Map<string, Obj>;
  permissions: Map<string, Obj[]>;
  revisions: Map<string, Obj[]>;
  drives: Map<string, Obj>;
  log: LogEntry[];
  /** Tokens below this are forgotten (410). */
  oldestToken: number;
  pageSize: { changes: number; drives: number; permissions: number };
  faults: Fault[];
  /** files.list says it did not search the whole corpus. */
  incompleteSearch?: boolean;
  /** Requests whose path matches answer 500 (a fault on one resource, not on the next request). */
  failing?: RegExp;
  /** Open watch channels. */
  channels: Obj[];
  stopped: Obj[];
  /** Requests as "METHOD /path" (no query), in order. */
  calls(): string[];
  // mutations, each written to the change log
  putFile(f: Obj, perms?: Obj[], revs?: Obj[]): Obj;
  patchFile(id: string, patch: Obj): void;
  setPermissions(id: string, perms: Obj[]): void;
  addPermission(id: string, p: Obj): void;
  removePermission(id: string, permId: string): void;
  addRevision(id: string, r?: Obj): void;
  trash(id: string): void;
  untrash(id: string): void;
  remove(id: string): void;
  putDrive(d: Obj): void;
  /** The user is added to a shared drive that has files: only the drive change is logged. */
  joinDrive(d: Obj, files: Obj[]): void;
  removeDrive(id: string): void;
}

const pid = (email: string): string => createHash('sha1').update(email.toLowerCase()).digest('hex').slice(0, 20);

export function permission(type: 'user' | 'group' | 'domain' | 'anyone', role: string, who?: string, o: Obj = {}): Obj {
  const p: Obj = { kind: 'drive#permission', type, role, etag: '"p"', selfLink: 'https://x/p' };
  if (type === 'user' || type === 'group') Object.assign(p, { id: pid(who!), emailAddress: who, domain: who!.split('@')[1], name: who!.split('@')[0] });
  else if (type === 'domain') Object.assign(p, { id: `${who}-domain`, domain: who, name: who });
  else Object.assign(p, { id: o['withLink'] ? 'anyoneWithLink' : 'anyone', withLink: false });
  return { ...p, ...o };
}

export function file(id: string, o: Obj = {}): Obj {
  return {
    kind: 'drive#file',
    id,
    etag: `"e-${id}"`,
    selfLink: `https://x/drive/v2/files/${id}`,
    title: `file ${id}`,
    mimeType: 'text/plain',
    parents: [{ kind: 'drive#parentReference', id: 'root', isRoot: true }],
    owners: [{ kind: 'drive#user', displayName: 'Owner', emailAddress: 'owner@acme.example' }],
    labels: { starred: false, hidden: false, trashed: false, restricted: false, viewed: true },
    createdDate: '2026-11-01T10:00:00.000Z',
    modifiedDate: '2026-11-01T10:00:00.000Z',
    version: '1',
    thumbnailLink: `https://thumb.example/${id}?token=${Math.random()}`,
    ...o,
  };
}

const error = (code: number, message: string, reason = 'invalid', location?: string): Obj => ({ error: { code, message, errors: [{ domain: 'global', reason, message, ...(location ? { location, locationType: 'parameter' } : {}) }] } });

function send(res: http.ServerResponse, status: number, v: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'cache-control': 'private, max-age=0, must-revalidate, no-transform' });
  res.end(status === 204 ? undefined : JSON.stringify(v));
}

/** The `q` the stand-in understands: clauses joined by "and". */
function matcher(q: string | null): ((f: Obj) => boolean) | undefined {
  if (q === null || q.trim() === '') return () => true;
  const tests: ((f: Obj) => boolean)[] = [];
  for (const clause of q.split(/\s+and\s+/i)) {
    let m: RegExpExecArray | null;
    if ((m = /^trashed\s*=\s*(true|false)$/.exec(clause.trim()))) {
      const want = m[1] === 'true';
      tests.push((f) => (f['labels']?.trashed === true) === want);
    } else if ((m = /^mimeType\s*(=|!=)\s*'([^']*)'$/.exec(clause.trim()))) {
      const [, op, v] = m;
      tests.push((f) => (f['mimeType'] === v) === (op === '='));
    } else if ((m = /^'([^']*)'\s+in\s+parents$/.exec(clause.trim()))) {
      const p = m[1];
      tests.push((f) => (f['parents'] ?? []).some((x: Obj) => x.id === p));
    } else if ((m = /^title\s+contains\s+'([^']*)'$/.exec(clause.trim()))) {
      const v = m[1]!;
      tests.push((f) => String(f['title']).includes(v));
    } else return undefined;
  }
  return (f) => tests.every((t) => t(f));
}

export async function driveStandIn(token = 'drive-secret'): Promise<DriveStandIn> {
  const s = (await httpServer(() => {})) as DriveStandIn;
  let channelSeq = 0;
  Object.assign(s, {
    token,
    files: new Map(),
    permissions: new Map(),
    revisions: new Map(),
    drives: new Map(),
    log: [],
    oldestToken: 1,
    pageSize: { changes: 3, drives: 2, permissions: 100 },
    faults: [],
    channels: [],
    stopped: [],
  });
  const record = (type: 'file' | 'drive', id: string, driveId?: string): void => {
    s.log.push({ seq: s.log.length + 1, type, id, driveId });
  };
  const touch = (f: Obj): void => {
    f['version'] = String(Number(f['version'] ?? 0) + 1);
    f['modifiedDate'] = new Date(Date.parse('2026-11-01T10:00:00Z') + Number(f['version']) * 60_000).toISOString();
  };
  s.calls = () => s.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`);
  s.putFile = (f, perms, revs) => {
    s.files.set(f['id'], f);
    if (perms) s.permissions.set(f['id'], perms);
    else if (!s.permissions.has(f['id'])) s.permissions.set(f['id'], [permission('user', 'owner', f['owners']?.[0]?.emailAddress ?? 'owner@acme.example')]);
    if (revs) s.revisions.set(f['id'], revs);
    else if (!s.revisions.has(f['id']) && f['mimeType'] !== FOLDER) s.revisions.set(f['id'], [{ kind: 'drive#revision', id: '1', modifiedDate: f['modifiedDate'], mimeType: f['mimeType'], downloadUrl: `https://dl.example/${f['id']}/1` }]);
    record('file', f['id'], f['driveId']);
    return f;
  };
  s.patchFile = (id, patch) => {
    const f = s.files.get(id)!;
    Object.assign(f, patch);
    touch(f);
    record('file', id, f['driveId']);
  };
  // a permission change is a change of the file (its metadata says who it is shared with)
  s.setPermissions = (id, perms) => {
    s.permissions.set(id, perms);
    s.files.get(id)!['shared'] = perms.length > 1;
    record('file', id, s.files.get(id)!['driveId']);
  };
  s.addPermission = (id, p) => s.setPermissions(id, [...(s.permissions.get(id) ?? []).filter((x) => x['id'] !== p['id']), p]);
  s.removePermission = (id, permId) => s.setPermissions(id, (s.permissions.get(id) ?? []).filter((x) => x['id'] !== permId));
  s.addRevision = (id, r = {}) => {
    const f = s.files.get(id)!;
    touch(f);
    const list = s.revisions.get(id) ?? [];
    list.push({ kind: 'drive#revision', id: String(list.length + 1), modifiedDate: f['modifiedDate'], mimeType: f['mimeType'], ...r });
    s.revisions.set(id, list);
    record('file', id, f['driveId']);
  };
  s.trash = (id) => s.patchFile(id, { labels: { ...s.files.get(id)!['labels'], trashed: true } });
  s.untrash = (id) => s.patchFile(id, { labels: { ...s.files.get(id)!['labels'], trashed: false } });
  s.remove = (id) => {
    const d = s.files.get(id)?.['driveId'];
    s.files.delete(id);
    s.permissions.delete(id);
    s.revisions.delete(id);
    record('file', id, d);
  };
  s.putDrive = (d) => {
    s.drives.set(d['id'], d);
    record('drive', d['id'], d['id']);
  };
  s.joinDrive = (d, files) => {
    for (const f of files) {
      s.files.set(f['id'], { ...f, driveId: d['id'], parents: [{ kind: 'drive#parentReference', id: d['id'], isRoot: false }] });
      s.permissions.set(f['id'], [permission('group', 'organizer', `${d['id']}@acme.example`)]);
      s.revisions.set(f['id'], []);
    }
    s.putDrive(d);
  };
  s.removeDrive = (id) => {
    s.drives.delete(id);
    for (const [fid, f] of [...s.files]) if (f['driveId'] === id) s.remove(fid);
    record('drive', id, id);
  };

  /** Whether a file (or a log entry's drive) is in the corpus the request asks for. */
  const inCorpus = (driveId: string | undefined, url: URL): boolean => {
    const want = url.searchParams.get('driveId');
    if (want !== null) return driveId === want;
    if (driveId !== undefined) return url.searchParams.get('includeItemsFromAllDrives') === 'true' && url.searchParams.get('corpora') !== 'default';
    return true;
  };
  const allDrivesParams = (url: URL): Obj | undefined => {
    if (url.searchParams.get('includeItemsFromAllDrives') === 'true' && url.searchParams.get('supportsAllDrives') !== 'true') return error(403, 'includeItemsFromAllDrives requires supportsAllDrives', 'teamDrivesSupportRequired');
    if (url.searchParams.get('driveId') !== null && url.searchParams.get('includeItemsFromAllDrives') !== 'true' && url.pathname.endsWith('/files')) return error(400, 'driveId requires includeItemsFromAllDrives', 'invalid', 'driveId');
    return undefined;
  };
  /** A file as the API shows it (shared-drive files only to callers that support them). */
  const visible = (id: string, url: URL): Obj | undefined => {
    const f = s.files.get(id);
    if (!f) return undefined;
    if (f['driveId'] !== undefined && url.searchParams.get('supportsAllDrives') !== 'true') return undefined;
    return f;
  };
  const pageOf = <T>(items: T[], url: URL, dflt: number, max: number): Obj => {
    const n = Number(url.searchParams.get('maxResults') ?? dflt);
    if (!Number.isInteger(n) || n < 0 || n > max) return error(400, `Invalid value for maxResults: ${n}`, 'invalid', 'maxResults');
    const pt = url.searchParams.get('pageToken');
    const off = pt === null ? 0 : Number(/^o(\d+)$/.exec(pt)?.[1] ?? NaN);
    if (Number.isNaN(off)) return error(400, 'Invalid page token', 'invalid', 'pageToken');
    const size = n || dflt;
    const out: { items: T[]; nextPageToken?: string } = { items: items.slice(off, off + size) };
    if (off + size < items.length) out.nextPageToken = `o${off + size}`;
    return out;
  };

  s.handler = (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (req.headers['authorization'] !== `Bearer ${s.token}`) return send(res, 401, error(401, 'Invalid Credentials', 'authError', 'Authorization'));
    if (applyFault(s.faults, res)) return;
    const p = url.pathname;
    if (s.failing?.test(p)) return send(res, 500, error(500, 'Backend Error', 'backendError'));
    if (!p.startsWith('/drive/v2/')) return send(res, 404, error(404, 'Not Found', 'notFound'));
    const path = p.slice('/drive/v2'.length);
    const bad = allDrivesParams(url);
    if (bad) return send(res, bad['error'].code, bad);
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && path === '/changes/startPageToken') return send(res, 200, { kind: 'drive#startPageToken', startPageToken: String(s.log.length + 1) });
    if (req.method === 'GET' && path === '/changes') {
      const t = url.searchParams.get('pageToken');
      if (t === null) return send(res, 400, error(400, 'Required parameter: pageToken', 'required', 'pageToken'));
      if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > s.log.length + 1) return send(res, 400, error(400, `Invalid Value: pageToken ${t}`, 'invalid', 'pageToken'));
      if (Number(t) < s.oldestToken) return send(res, 410, error(410, 'The page token is no longer valid', 'gone', 'pageToken'));
      const latest = new Map<string, LogEntry>();
      for (const e of s.log.slice(Number(t) - 1)) {
        if (!inCorpus(e.driveId, url)) continue;
        const k = `${e.type}:${e.id}`;
        latest.delete(k);
        latest.set(k, e);
      }
      const entries = [...latest.values()];
      const n = Number(url.searchParams.get('maxResults') ?? 100);
      const size = Math.min(n, s.pageSize.changes);
      const items = entries.slice(0, size).map((e) => {
        const base = { kind: 'drive#change', id: String(e.seq), type: e.type, modificationDate: '2026-11-01T10:00:00.000Z' };
        if (e.type === 'drive') {
          const d = s.drives.get(e.id);
          return { ...base, changeType: 'drive', driveId: e.id, deleted: !d, ...(d ? { drive: d } : {}) };
        }
        const f = s.files.get(e.id);
        return { ...base, changeType: 'file', fileId: e.id, deleted: !f, ...(f ? { file: f } : {}), ...(e.driveId ? { driveId: e.driveId } : {}) };
      });
      const out: Obj = { kind: 'drive#changeList', items };
      if (entries.length > size) out['nextPageToken'] = String(entries[size]!.seq);
      else out['newStartPageToken'] = String(s.log.length + 1);
      return send(res, 200, out);
    }
    if (req.method === 'POST' && path === '/changes/watch') {
      const body = JSON.parse(req.body.toString()) as Obj;
      if (!url.searchParams.get('pageToken')) return send(res, 400, error(400, 'Required parameter: pageToken', 'required', 'pageToken'));
      const ch = { kind: 'api#channel', id: body['id'], resourceId: `res-${++channelSeq}`, resourceUri: `${s.url}/drive/v2/changes`, token: body['token'], address: body['address'], expiration: String(body['expiration'] ?? Date.now() + 3_600_000) };
      s.channels.push(ch);
      return send(res, 200, ch);
    }
    if (req.method === 'POST' && path === '/channels/stop') {
      const body = JSON.parse(req.body.toString()) as Obj;
      s.stopped.push(body);
      s.channels = s.channels.filter((c) => c['id'] !== body['id']);
      return send(res, 204, undefined);
    }
    if (req.method !== 'GET') return send(res, 405, error(405, 'Method not allowed'));
    if (path === '/files') {
      const corpora = url.searchParams.get('corpora') ?? 'default';
      if (corpora === 'drive' && url.searchParams.get('driveId') === null) return send(res, 400, error(400, 'corpora=drive requires driveId', 'invalid', 'corpora'));
      const q = matcher(url.searchParams.get('q'));
      if (!q) return send(res, 400, error(400, `Invalid query: ${url.searchParams.get('q')}`, 'invalid', 'q'));
      const items = [...s.files.values()].filter((f) => inCorpus(f['driveId'], url) && q(f)).sort((a, b) => (a['id'] < b['id'] ? -1 : 1));
      const page = pageOf(items, url, 100, 1000);
      return page['error'] ? send(res, 400, page) : send(res, 200, { kind: 'drive#fileList', ...page, ...(s.incompleteSearch ? { incompleteSearch: true } : {}) });
    }
    if ((m = /^\/files\/([^/]+)$/.exec(path))) {
      const f = visible(decodeURIComponent(m[1]!), url);
      return f ? send(res, 200, f) : send(res, 404, error(404, `File not found: ${m[1]}`, 'notFound', 'fileId'));
    }
    if ((m = /^\/files\/([^/]+)\/permissions$/.exec(path))) {
      const id = decodeURIComponent(m[1]!);
      if (!visible(id, url)) return send(res, 404, error(404, `File not found: ${id}`, 'notFound', 'fileId'));
      const perms = s.permissions.get(id);
      if (perms === undefined) return send(res, 403, error(403, 'The user does not have sufficient permissions for this file.', 'insufficientFilePermissions'));
      const page = pageOf(perms, url, s.pageSize.permissions, 100);
      return page['error'] ? send(res, 400, page) : send(res, 200, { kind: 'drive#permissionList', ...page });
    }
    if ((m = /^\/files\/([^/]+)\/revisions$/.exec(path))) {
      const id = decodeURIComponent(m[1]!);
      const f = s.files.get(id);
      if (!f) return send(res, 404, error(404, `File not found: ${id}`, 'notFound', 'fileId'));
      if (f['mimeType'] === FOLDER) return send(res, 403, error(403, 'The file does not support revisions.', 'revisionsNotSupported'));
      return send(res, 200, { kind: 'drive#revisionList', items: s.revisions.get(id) ?? [] });
    }
    if ((m = /^\/permissionIds\/([^/]+)$/.exec(path))) return send(res, 200, { kind: 'drive#permissionId', id: pid(decodeURIComponent(m[1]!)) });
    if (path === '/drives') {
      // the stand-in pages drives small (pageSize.drives), whatever maxResults asks, so the adapter pages them
      const all = [...s.drives.values()].sort((a, b) => (a['id'] < b['id'] ? -1 : 1));
      const pt = url.searchParams.get('pageToken');
      const off = pt === null ? 0 : Number(/^o(\d+)$/.exec(pt)?.[1] ?? NaN);
      if (Number.isNaN(off)) return send(res, 400, error(400, 'Invalid page token', 'invalid', 'pageToken'));
      const out: Obj = { kind: 'drive#driveList', items: all.slice(off, off + s.pageSize.drives) };
      if (off + s.pageSize.drives < all.length) out['nextPageToken'] = `o${off + s.pageSize.drives}`;
      return send(res, 200, out);
    }
    if ((m = /^\/drives\/([^/]+)$/.exec(path))) {
      const d = s.drives.get(decodeURIComponent(m[1]!));
      return d ? send(res, 200, d) : send(res, 404, error(404, 'Shared drive not found', 'notFound', 'driveId'));
    }
    send(res, 404, error(404, 'Not Found', 'notFound'));
  };
  return s;
}

/** The permission id the stand-in gives an address. */
export const permissionIdOf = pid;
