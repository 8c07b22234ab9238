// The file storage adapter (type: drive) reads the file storage API v2 and serves at data.drive:
//   files["<id>"]            the file's metadata as the API gives it (trashed files left out;
//                            etag, selfLink and short-lived links dropped), with
//                            parents: ["<parent id>", ...] (sorted),
//                            permissions: [Permission, ...] (sorted by id; a file whose
//                              permissions the user may not see has [] and
//                              permissions_unreadable: true),
//                            revisions: [Revision metadata, ...] (when revisions: true)
//   drives["<id>"]           the shared drives read (all of them, or those of drive_ids)
//   permission_ids["<email>"] the permission id of each address of permission_ids_for
//   sync                     page_tokens["<feed>"] (the change feed position: "allDrives",
//                            "user" or a drive id), scope (the settings the data was read
//                            with), full_reads, incremental_reads (reads that changed something),
//                            incomplete_search: true when the API said its listing did not
//                            search the whole corpus (absent otherwise)
// The first read takes the change feed's start page token first, then lists everything.
// Every later read starts from the stored token: it lists the changes up to the feed's
// newStartPageToken, re-reads only the files that changed (their permissions and
// revisions), drops deleted and trashed ones (and the files of a shared drive gone out of
// reach), lists the files of a shared drive that came into reach, and keeps the rest of
// the previous document.
// A token the feed no longer accepts (400, 404, 410), or data read with other settings,
// means one full read again. With `query`, the files matching it are listed again (one
// paged listing, no per-file requests) when the feed has changes, since only the API can
// say which files the query matches. Object keys are sorted, so an unchanged API gives an
// identical document (and no new revision).
// With `push`, a changes/watch channel is opened from the last read's token; each
// notification (X-Goog-Channel-Token) starts an early incremental read; channels/stop on stop.

import { fail, type Section } from '../../plugins/config/section.js';
import type { AdapterHttp } from '../../plugins/adapters/http.js';
import { isObj, type AdapterType, type DataSource, type JSONValue, type PushChannel, type ReadContext } from '../../plugins/adapters/types.js';
import {
  answered,
  getDrive,
  getFile,
  listChanges,
  listDrives,
  listFiles,
  listPermissions,
  listRevisions,
  MAX_RESULTS,
  permissionId,
  startPageToken,
  stopChannel,
  watchChanges,
  type Feed,
} from './client.js';
import { pool } from '../../plugins/adapters/pool.js';

export interface DriveSettings {
  /** allDrives: the user's files and every shared drive; user: the user's files only; drive: drive_ids. */
  corpora: 'allDrives' | 'user' | 'drive';
  drive_ids: string[];
  query?: string;
  max_results: number;
  revisions: boolean;
  permission_ids_for: string[];
}

type Obj = Record<string, JSONValue>;

/** Fields that change without the file changing (short-lived links) or say nothing to a policy. */
const DROPPED = new Set(['etag', 'selfLink', 'thumbnailLink', 'thumbnail', 'downloadUrl', 'exportLinks', 'lastViewedByMeDate', 'markedViewedByMeDate', 'permissions']);

/** A value with every object's keys sorted and etag/selfLink left out (the document's canonical form). */
function canonical(v: JSONValue): JSONValue {
  if (Array.isArray(v)) return v.map(canonical);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const k of Object.keys(v).sort()) if (k !== 'etag' && k !== 'selfLink') out[k] = canonical(v[k]!);
  return out;
}

const byId = (a: JSONValue, b: JSONValue): number => {
  const x = isObj(a) ? String(a['id'] ?? '') : '';
  const y = isObj(b) ? String(b['id'] ?? '') : '';
  return x < y ? -1 : x > y ? 1 : 0;
};

const trashed = (f: Obj): boolean => isObj(f['labels']) && f['labels']['trashed'] === true;

export function feeds(s: DriveSettings): Feed[] {
  return s.corpora === 'drive' ? s.drive_ids.map((id) => ({ key: id, corpora: 'drive', driveId: id })) : [{ key: s.corpora, corpora: s.corpora }];
}

/** The settings the data depends on: data read with other ones is read again in full. */
function scopeOf(s: DriveSettings): Obj {
  return { corpora: s.corpora, drive_ids: [...s.drive_ids].sort(), query: s.query ?? null, revisions: s.revisions };
}


const CONCURRENCY = 8;

/** A file's entry: its metadata, parent ids, permissions and revisions; undefined when it is gone. */
async function fileEntry(http: AdapterHttp, s: DriveSettings, id: string, meta: Obj | undefined): Promise<Obj | undefined> {
  const m = meta ?? (await getFile(http, id));
  if (!m || trashed(m)) return undefined;
  const perms = await listPermissions(http, id);
  if (perms === undefined) return undefined;
  const out: Obj = {};
  for (const [k, v] of Object.entries(m)) if (!DROPPED.has(k)) out[k] = v;
  const parents = Array.isArray(m['parents']) ? m['parents'] : [];
  out['parents'] = [...new Set(parents.map((p) => (isObj(p) ? p['id'] : p)).filter((p): p is string => typeof p === 'string'))].sort();
  out['permissions'] = perms === 'forbidden' ? [] : [...perms].sort(byId);
  if (perms === 'forbidden') out['permissions_unreadable'] = true;
  if (s.revisions) {
    const revs = await listRevisions(http, id);
    if (revs === undefined) return undefined;
    out['revisions'] = revs.map((r) => {
      const x: Obj = {};
      for (const [k, v] of Object.entries(r)) if (k !== 'downloadUrl' && k !== 'exportLinks') x[k] = v;
      return x;
    });
  }
  return canonical(out) as Obj;
}

/** Entries of the given files, 8 at a time, into `files` (gone ones deleted from it). */
async function fetchEntries(ctx: ReadContext, s: DriveSettings, want: { id: string; meta?: Obj }[], files: Obj): Promise<void> {
  let done = 0;
  await pool(want, CONCURRENCY, async ({ id, meta }) => {
    const e = await fileEntry(ctx.http, s, id, meta);
    if (e) files[id] = e;
    else delete files[id];
    ctx.progress?.(++done, want.length);
  });
}

/** The non-trashed files of every feed the query matches, by id; `incomplete` when the API did not search everything. */
async function listAll(ctx: ReadContext, s: DriveSettings): Promise<{ files: Map<string, Obj>; incomplete: boolean }> {
  const out = new Map<string, Obj>();
  let incomplete = false;
  for (const f of feeds(s)) {
    const r = await listFiles(ctx.http, f, s.query, s.max_results);
    if (r.incomplete) {
      incomplete = true;
      ctx.log.warn({ feed: f.key }, 'Drive: the API did not search the whole corpus (incompleteSearch); some files are missing. Name the shared drives in drive_ids.');
    }
    for (const m of r.items) if (typeof m['id'] === 'string' && !trashed(m)) out.set(m['id'], m);
  }
  return { files: out, incomplete };
}

const driveInScope = (s: DriveSettings, id: string): boolean => s.corpora === 'allDrives' || (s.corpora === 'drive' && s.drive_ids.includes(id));

async function readDrives(http: AdapterHttp, s: DriveSettings): Promise<Obj> {
  const out: Obj = {};
  if (s.corpora === 'user') return out;
  for (const d of await listDrives(http)) if (typeof d['id'] === 'string' && driveInScope(s, d['id'])) out[d['id']] = canonical(d);
  return out;
}

/** permission_ids_for looked up; addresses known from the previous read are not asked again. */
async function readPermissionIds(http: AdapterHttp, s: DriveSettings, known: Obj): Promise<Obj> {
  const out: Obj = {};
  for (const email of s.permission_ids_for) out[email] = typeof known[email] === 'string' ? known[email] : await permissionId(http, email);
  return out;
}

function sortedKeys(o: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k]!;
  return out;
}

function documentOf(s: DriveSettings, files: Obj, drives: Obj, permissionIds: Obj, tokens: Obj, counts: { full_reads: number; incremental_reads: number }, incomplete: boolean): Obj {
  const sync: Obj = { page_tokens: sortedKeys(tokens), scope: scopeOf(s), full_reads: counts.full_reads, incremental_reads: counts.incremental_reads };
  // only when it happened: a policy may refuse to allow over a partial listing
  if (incomplete) sync['incomplete_search'] = true;
  return { files: sortedKeys(files), drives: sortedKeys(drives), permission_ids: sortedKeys(permissionIds), sync };
}

function counters(prev: JSONValue | undefined): { full_reads: number; incremental_reads: number } {
  const sync = isObj(prev) && isObj(prev['sync']) ? prev['sync'] : {};
  const n = (v: JSONValue | undefined): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
  return { full_reads: n(sync['full_reads']), incremental_reads: n(sync['incremental_reads']) };
}

export async function fullRead(ctx: ReadContext, s: DriveSettings): Promise<Obj> {
  const tokens: Obj = {};
  // the token first: whatever changes while the listing runs is in the feed from it
  for (const f of feeds(s)) tokens[f.key] = await startPageToken(ctx.http, f);
  const listed = await listAll(ctx, s);
  const files: Obj = {};
  await fetchEntries(ctx, s, [...listed.files.entries()].map(([id, meta]) => ({ id, meta })), files);
  const drives = await readDrives(ctx.http, s);
  const prevIds = isObj(ctx.previous) && isObj(ctx.previous['permission_ids']) ? ctx.previous['permission_ids'] : {};
  const c = counters(ctx.previous);
  return documentOf(s, files, drives, await readPermissionIds(ctx.http, s, prevIds), tokens, { ...c, full_reads: c.full_reads + 1 }, listed.incomplete);
}

interface Previous {
  files: Obj;
  drives: Obj;
  permission_ids: Obj;
  tokens: Record<string, string>;
  /** The listing the data started from was incomplete (changes do not make it whole). */
  incomplete: boolean;
}

/** The previous document, when it was read with these settings and has a token for every feed. */
function usable(prev: JSONValue | undefined, s: DriveSettings): Previous | undefined {
  if (!isObj(prev) || !isObj(prev['files']) || !isObj(prev['drives']) || !isObj(prev['sync'])) return undefined;
  const sync = prev['sync'];
  if (!isObj(sync['page_tokens']) || JSON.stringify(sync['scope']) !== JSON.stringify(scopeOf(s))) return undefined;
  const tokens: Record<string, string> = {};
  for (const f of feeds(s)) {
    const t = sync['page_tokens'][f.key];
    if (typeof t !== 'string' || t === '') return undefined;
    tokens[f.key] = t;
  }
  return { files: prev['files'], drives: prev['drives'], permission_ids: isObj(prev['permission_ids']) ? prev['permission_ids'] : {}, tokens, incomplete: sync['incomplete_search'] === true };
}

/** The change feed no longer knows the stored token. */
class TokenRefused extends Error {}

/** Applies the change feed since the stored tokens to the previous document. */
export async function incrementalRead(ctx: ReadContext, s: DriveSettings, prev: Previous): Promise<Obj> {
  const fileChanges = new Map<string, Obj>();
  const driveChanges = new Map<string, Obj>();
  const tokens: Obj = {};
  for (const f of feeds(s)) {
    let r: Awaited<ReturnType<typeof listChanges>>;
    try {
      r = await listChanges(ctx.http, f, prev.tokens[f.key]!, Math.min(s.max_results, MAX_RESULTS));
    } catch (e) {
      if (answered(e, 400, 404, 410)) throw new TokenRefused(`feed ${f.key}: ${(e as Error).message}`);
      throw e;
    }
    tokens[f.key] = r.newStartPageToken;
    // the last change of an item is the one that counts
    for (const c of r.changes) {
      const isDrive = c['type'] === 'drive' || c['changeType'] === 'drive' || (c['fileId'] === undefined && typeof c['driveId'] === 'string');
      const id = isDrive ? c['driveId'] : c['fileId'];
      if (typeof id !== 'string') continue;
      const m = isDrive ? driveChanges : fileChanges;
      m.delete(id);
      m.set(id, c);
    }
  }
  const c = counters(ctx.previous);
  const permissionIds = await readPermissionIds(ctx.http, s, prev.permission_ids);
  if (!fileChanges.size && !driveChanges.size) return documentOf(s, prev.files, prev.drives, permissionIds, tokens, c, prev.incomplete);
  const files: Obj = { ...prev.files };
  const drives: Obj = { ...prev.drives };
  // shared drives that came into reach (the user was added): the feed does not list their files
  const joined: string[] = [];
  for (const [id, ch] of driveChanges) {
    const gone = ch['deleted'] === true || ch['removed'] === true;
    const d = gone || !driveInScope(s, id) ? undefined : isObj(ch['drive']) ? ch['drive'] : await getDrive(ctx.http, id);
    if (d) {
      if (!(id in drives)) joined.push(id);
      drives[id] = canonical(d);
    } else if (id in drives) {
      delete drives[id];
      // a shared drive gone (or out of reach) takes its files with it
      for (const [fid, f] of Object.entries(files)) if (isObj(f) && f['driveId'] === id) delete files[fid];
    }
  }
  const want: { id: string; meta?: Obj }[] = [];
  for (const [id, ch] of fileChanges) {
    if (ch['deleted'] === true || ch['removed'] === true || (isObj(ch['file']) && trashed(ch['file']))) delete files[id];
    else want.push({ id, meta: isObj(ch['file']) ? ch['file'] : undefined });
  }
  let incomplete = prev.incomplete;
  if (s.query === undefined) {
    const changed = new Set(want.map((w) => w.id));
    for (const driveId of joined) {
      const r = await listFiles(ctx.http, { key: driveId, corpora: 'drive', driveId }, undefined, s.max_results);
      for (const m of r.items) if (typeof m['id'] === 'string' && !trashed(m) && !changed.has(m['id'])) want.push({ id: m['id'], meta: m });
    }
  } else {
    // only the API knows which files the query matches now
    const listed = await listAll(ctx, s);
    const matched = listed.files;
    incomplete = listed.incomplete;
    for (const id of Object.keys(files)) if (!matched.has(id)) delete files[id];
    const changed = new Set(want.map((w) => w.id));
    want.splice(0, want.length, ...want.filter((w) => matched.has(w.id)).map((w) => ({ id: w.id, meta: matched.get(w.id) })));
    for (const [id, meta] of matched) if (!(id in files) && !changed.has(id)) want.push({ id, meta });
    for (const id of changed) if (!matched.has(id)) delete files[id];
  }
  await fetchEntries(ctx, s, want, files);
  return documentOf(s, files, drives, permissionIds, tokens, { ...c, incremental_reads: c.incremental_reads + 1 }, incomplete);
}

export async function readDrive(ctx: ReadContext, s: DriveSettings): Promise<Obj> {
  const prev = usable(ctx.previous, s);
  if (prev) {
    try {
      return await incrementalRead(ctx, s, prev);
    } catch (e) {
      if (!(e instanceof TokenRefused)) throw e;
      ctx.log.warn({ err: e.message }, 'Drive: the change feed refused the stored page token; reading everything again.');
    }
  }
  return fullRead(ctx, s);
}

export const drive: AdapterType<DriveSettings> = {
  kind: 'data',
  defaultRoot: 'drive',
  pushTokenHeader: 'x-goog-channel-token',
  settings(s: Section): DriveSettings {
    const corpora = s.str('corpora');
    const driveIds = s.strList('drive_ids');
    if (corpora !== undefined && !['allDrives', 'user', 'drive'].includes(corpora)) fail(`${s.key}.corpora`, `"${corpora}" is not one of allDrives, user, drive`);
    if (driveIds !== undefined && !driveIds.length) fail(`${s.key}.drive_ids`, 'name at least one shared drive, or leave drive_ids out');
    if (driveIds !== undefined && corpora !== undefined && corpora !== 'drive') fail(`${s.key}.drive_ids`, `drive_ids reads the named shared drives only: corpora must be "drive" or left out, not "${corpora}"`);
    if (corpora === 'drive' && driveIds === undefined) fail(`${s.key}.corpora`, 'corpora "drive" needs drive_ids');
    const maxResults = s.int('max_results') ?? 100;
    if (maxResults < 1 || maxResults > MAX_RESULTS) fail(`${s.key}.max_results`, `must be between 1 and ${MAX_RESULTS} (the API's maximum)`);
    const query = s.str('query');
    if (query !== undefined && query.trim() === '') fail(`${s.key}.query`, 'empty query: leave it out to read every file');
    const emails = s.strList('permission_ids_for') ?? [];
    emails.forEach((e, i) => {
      if (!/^[^@\s]+@[^@\s]+$/.test(e)) fail(`${s.key}.permission_ids_for[${i}]`, `"${e}" is not an e-mail address`);
    });
    return {
      corpora: driveIds !== undefined ? 'drive' : ((corpora as DriveSettings['corpora'] | undefined) ?? 'allDrives'),
      drive_ids: driveIds ?? [],
      query,
      max_results: maxResults,
      revisions: s.bool('revisions', true),
      permission_ids_for: [...new Set(emails)].sort(),
    };
  },
  data(settings: DriveSettings): DataSource {
    // the feed positions of the last read: where push channels start from
    let tokens: Record<string, string> = {};
    return {
      async read(ctx) {
        const doc = await readDrive(ctx, settings);
        const sync = doc['sync'] as Obj;
        tokens = Object.fromEntries(Object.entries(sync['page_tokens'] as Obj).map(([k, v]) => [k, String(v)]));
        return doc;
      },
      async watch(ctx) {
        const out: PushChannel[] = [];
        for (const f of feeds(settings)) {
          const t = tokens[f.key];
          if (t === undefined) continue;
          const id = ctx.newId();
          const ch = await watchChanges(ctx.http, f, t, { id, address: ctx.address, token: ctx.token, expiration: Date.now() + ctx.ttlSeconds * 1000 });
          const exp = Number(ch['expiration']);
          out.push({ id: typeof ch['id'] === 'string' ? ch['id'] : id, resourceId: typeof ch['resourceId'] === 'string' ? ch['resourceId'] : undefined, expiration: Number.isFinite(exp) && exp > 0 ? exp : undefined, resource: f.key });
        }
        return out;
      },
      async unwatch(ctx, channels) {
        for (const c of channels) await stopChannel(ctx.http, c.id, c.resourceId);
      },
    };
  },
};
