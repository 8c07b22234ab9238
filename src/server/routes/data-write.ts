// Data API writes: PUT, PATCH and DELETE /v1/data/{path}, each one atomic store
// transaction with OPA's rules (seed rules 4-8): PUT creates missing parents, honours
// If-None-Match: *, refuses virtual documents and non-object parents; PATCH joins the URL
// path with each operation's path; DELETE is a single remove. Paths a bundle owns are
// refused first (bundle-scope.ts), as OPA does.

import type { Context } from 'hono';
import { isPlainObject, type Value } from '../../value/index.js';
import type { App, Env, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { decodeJSON, DecodeError, readBody, nodeIncoming, headerOf } from '../body.js';
import { badRequest, HttpError, Code } from '../errors.js';
import { route, since } from '../handler.js';
import { boolParam, pathAfter, splitURL } from '../params.js';
import {
  StorageError,
  existsAt,
  parsePatchPathEscaped,
  parsePathEscaped,
  pathHasPrefix,
  pathToString,
  type WriteOp,
  type WriteTxn,
} from '../../storage/index.js';
import { envelope, noContent, sendJSON } from '../respond.js';
import { checkBundleScope } from '../bundle-scope.js';

function trimSlashes(s: string): string {
  return s.replace(/^\/+/, '').replace(/\/+$/, '');
}

function storagePath(escaped: string): string[] {
  const p = parsePathEscaped('/' + trimSlashes(escaped));
  if (!p) throw badRequest(`bad path: ${escaped}`);
  return p;
}

/**
 * Rules own their documents: a write at or under a rule's path is a write conflict (404);
 * a write above it whose value reaches into the rule's path conflicts like OPA's
 * CheckPathConflicts (400).
 */
function checkVirtual(ctx: ServerContext, txn: WriteTxn, path: string[]): void {
  for (const rule of ctx.engine.virtualDocumentPaths()) {
    if (pathHasPrefix(path, rule)) {
      throw new StorageError('storage_write_conflict_error', pathToString(path));
    }
    if (pathHasPrefix(rule, path) && existsAt(txn.data, rule)) {
      throw new HttpError(400, Code.invalidParameter, `conflicting rule for data path ${rule.join('/')} found`);
    }
  }
}

async function readJSONBody(c: Context<Env>, ctx: ServerContext): Promise<Value | undefined> {
  const buf = await readBody(c.req.raw, ctx.limits, undefined, nodeIncoming(c.env));
  try {
    return decodeJSON(buf, ctx.limits);
  } catch (e) {
    if (e instanceof DecodeError) throw badRequest(e.message);
    throw e;
  }
}

function written(q: URLSearchParams, start: bigint, parse: number): Promise<Response> | Response {
  if (!boolParam(q, 'metrics')) return noContent();
  const metrics = { timer_rego_input_parse_ns: parse, timer_server_handler_ns: since(start) };
  return sendJSON(envelope([['metrics', metrics]], false));
}

interface PatchOp {
  op: WriteOp;
  path: string[];
  value: Value | undefined;
}

function preparePatch(root: string, body: Value | undefined): PatchOp[] {
  if (!Array.isArray(body)) throw badRequest('request body must be an array of JSON Patch operations');
  const base = '/' + trimSlashes(root);
  return body.map((item) => {
    if (!isPlainObject(item)) throw badRequest('each JSON Patch operation must be an object');
    const op = item['op'] ?? '';
    const opPath = item['path'] ?? '';
    if (typeof op !== 'string' || typeof opPath !== 'string') throw badRequest('patch "op" and "path" must be strings');
    if (op !== 'add' && op !== 'remove' && op !== 'replace') throw badRequest(`bad patch operation: ${op}`);
    const rel = trimSlashes(opPath);
    const full = rel.length === 0 ? base : base === '/' ? base + rel : base + '/' + rel;
    const path = parsePatchPathEscaped(full);
    if (!path) throw badRequest(`bad patch path: ${opPath}`);
    return { op, path, value: Object.hasOwn(item, 'value') ? item['value'] : null };
  });
}

/** Writes go to the primary: it holds the one store every worker copies (the 405s are declared with the reads). */
export const dataWriteRoutes: RouteFamily = {
  routes: [
    { method: 'PUT', path: '/v1/data', answeredBy: 'primary' },
    { method: 'PUT', path: '/v1/data/*', answeredBy: 'primary' },
    { method: 'PATCH', path: '/v1/data', answeredBy: 'primary' },
    { method: 'PATCH', path: '/v1/data/*', answeredBy: 'primary' },
    { method: 'DELETE', path: '/v1/data/*', answeredBy: 'primary' },
  ],
  mount: registerDataWrite,
};

export function registerDataWrite(app: App, ctx: ServerContext): void {
  const store = ctx.engine.store;

  const put = route('v1/data', async (c) => {
    const start = process.hrtime.bigint();
    const { path: url, query: q } = splitURL(c.req.url);
    const t0 = process.hrtime.bigint();
    const value = await readJSONBody(c, ctx);
    if (value === undefined) throw badRequest('EOF');
    const parse = since(t0);
    const path = storagePath(pathAfter(url, '/v1/data'));
    const ifNoneMatch = headerOf(c.req.raw, nodeIncoming(c.env), 'if-none-match') === '*';
    const outcome = await store.transact((txn) => {
      checkBundleScope(txn.data, path);
      checkVirtual(ctx, txn, path);
      if (txn.exists(path)) {
        if (ifNoneMatch) return 'not-modified' as const;
      } else if (path.length > 0) {
        txn.makeDir(path.slice(0, -1));
      }
      txn.write('add', path, value);
      checkVirtual(ctx, txn, path);
      return 'written' as const;
    });
    if (outcome === 'not-modified') return noContent(304);
    return written(q, start, parse);
  });

  const patch = route('v1/data', async (c) => {
    const start = process.hrtime.bigint();
    const { path: url, query: q } = splitURL(c.req.url);
    const t0 = process.hrtime.bigint();
    const body = await readJSONBody(c, ctx);
    const parse = since(t0);
    const ops = preparePatch(pathAfter(url, '/v1/data'), body);
    await store.transact((txn) => {
      for (const op of ops) {
        checkBundleScope(txn.data, op.path);
        checkVirtual(ctx, txn, op.path);
        txn.write(op.op, op.path, op.value);
      }
      for (const op of ops) if (op.op !== 'remove') checkVirtual(ctx, txn, op.path);
    });
    return written(q, start, parse);
  });

  const del = route('v1/data', async (c) => {
    const start = process.hrtime.bigint();
    const { path: url, query: q } = splitURL(c.req.url);
    const path = storagePath(pathAfter(url, '/v1/data'));
    await store.transact((txn) => {
      checkBundleScope(txn.data, path);
      checkVirtual(ctx, txn, path);
      txn.read(path); // 404 when it does not exist
      txn.write('remove', path);
    });
    return written(q, start, 0);
  });

  app.put('/v1/data', put);
  app.put('/v1/data/*', put);
  app.patch('/v1/data', patch);
  app.patch('/v1/data/*', patch);
  app.delete('/v1/data/*', del);
}
