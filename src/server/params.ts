// Query-string and URL-path helpers with OPA's exact rules (getBoolParam, getExplain,
// stringPathToRef, escaped path values).

import { pathUnescape } from '../storage/index.js';
import type { Value } from '../value/index.js';
import type { ExplainMode } from '../engine/types.js';
import { badRequest } from './errors.js';

/** OPA's getBoolParam(..., ifEmpty=true): absent -> false; `?x` -> true; any value "true" (any case) -> true. */
export function boolParam(q: URLSearchParams, name: string): boolean {
  const vals = q.getAll(name);
  if (vals.length === 0) return false;
  if (vals.length === 1 && vals[0] === '') return true;
  return vals.some((v) => v.toLowerCase() === 'true');
}

const EXPLAIN = new Set(['notes', 'fails', 'full', 'debug']);

/** The first recognised `explain` value, or undefined (off). */
export function explainParam(q: URLSearchParams): ExplainMode | undefined {
  for (const v of q.getAll('explain')) if (EXPLAIN.has(v)) return v as ExplainMode;
  return undefined;
}

/** OPA's getStringSliceParam: a lone empty value counts as none. */
export function stringSliceParam(q: URLSearchParams, name: string): string[] {
  const vals = q.getAll(name);
  if (vals.length === 1 && vals[0] === '') return [];
  return vals;
}

/** The raw (still percent-encoded) path of a request URL and its parsed query. */
export function splitURL(url: string): { path: string; query: URLSearchParams } {
  // Skip "scheme://host" without a full URL parse: it is on every request.
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const rest = start < 0 ? '/' : url.slice(start);
  const qi = rest.indexOf('?');
  if (qi < 0) return { path: rest, query: new URLSearchParams() };
  return { path: rest.slice(0, qi), query: new URLSearchParams(rest.slice(qi + 1)) };
}

/** The escaped remainder of `path` after `prefix` ("/v1/data/a/b" minus "/v1/data" = "/a/b"). */
export function pathAfter(path: string, prefix: string): string {
  return path.length > prefix.length ? path.slice(prefix.length) : '';
}

const INT = /^[+-]?\d+$/;

/**
 * OPA's stringPathToRef: "/a/b/0" -> ["a", "b", 0]. Empty segments are skipped, segments
 * are URL-unescaped, integers become numbers, and a double quote is refused.
 */
export function dataPathToRef(escaped: string): Value[] {
  const ref: Value[] = [];
  for (const raw of escaped.split('/')) {
    if (raw === '') continue;
    const x = pathUnescape(raw);
    if (x.includes('"')) throw badRequest(`invalid path: invalid ref term '${x}'`);
    if (INT.test(x)) {
      const n = Number(x);
      if (Number.isSafeInteger(n)) {
        ref.push(n);
        continue;
      }
    }
    ref.push(x);
  }
  return ref;
}

export { refText } from '../engine/index.js';
