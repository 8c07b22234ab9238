// Storage paths: arrays of unescaped string segments. Parsing and printing follow OPA's
// storage.Path rules ("/a/b", URL-escaped segments; JSON-pointer escapes for patches).

import { unescapePathComponent } from 'fast-json-patch';

export type StoragePath = readonly string[];

/** OPA's ParsePath: must start with "/"; "/" is the root. No unescaping. */
export function parsePath(text: string): string[] | undefined {
  if (text.length === 0 || text[0] !== '/') return undefined;
  if (text.length === 1) return [];
  return text.slice(1).split('/');
}

/** Go's url.PathUnescape; a malformed escape leaves the segment as it was (as OPA does). */
export function pathUnescape(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** OPA's ParsePathEscaped: parsePath, then URL-unescape each segment. */
export function parsePathEscaped(text: string): string[] | undefined {
  const p = parsePath(text);
  return p?.map(pathUnescape);
}

/** Path of a JSON Patch operation: URL-unescaped, then RFC 6901 `~1` -> `/`, `~0` -> `~`. */
export function parsePatchPathEscaped(text: string): string[] | undefined {
  const p = parsePathEscaped(text);
  return p?.map((s) => unescapePathComponent(s));
}

// Characters Go's url.PathEscape leaves alone in a path segment.
const SAFE = /[A-Za-z0-9\-_.~$&+,:;=@]/;

/** Go's url.PathEscape. */
export function pathEscape(segment: string): string {
  let out = '';
  for (const ch of segment) {
    if (ch.length === 1 && SAFE.test(ch)) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** OPA's Path.String(): "/" + escaped segments joined by "/". */
export function pathToString(path: StoragePath): string {
  return '/' + path.map(pathEscape).join('/');
}

export function pathHasPrefix(path: StoragePath, prefix: StoragePath): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
  return true;
}

/** Go's strconv.Atoi for array indexes: optional sign, decimal digits, 64-bit range. */
export function parseArrayIndex(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  if (!Number.isSafeInteger(n)) return Number.MAX_SAFE_INTEGER; // out of range for any array
  return n;
}
