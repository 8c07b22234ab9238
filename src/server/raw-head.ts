// Reading one HTTP/1.1 request from bytes, for the decision path below Node's HTTP layer
// (raw-decisions.ts). It accepts only a strict subset, the shape every ordinary client
// sends: `POST /v1/data/<plain path> HTTP/1.1`, token header names, visible-ASCII values,
// CRLF line ends, one Host, one decimal Content-Length, no header twice. Anything outside
// it (other methods or versions, Transfer-Encoding, Expect, Upgrade, Content-Encoding,
// Connection other than keep-alive, obs-folds, bare CR or LF, bytes above 0x7e, a head over
// Node's 16 KiB) is not judged here: the caller hands the bytes to Node's own parser, which
// accepts or refuses them as it always does. So no request is read in a way Node would not
// read it: this reader is a filter in front of llhttp, never a second opinion.

import { maxHeaderSize, type IncomingHttpHeaders } from 'node:http';

/** Node's --max-http-header-size (16 KiB unless set): a longer head is Node's to refuse. */
export const MAX_HEAD_BYTES = maxHeaderSize;
/** More headers than this is no ordinary client: Node decides. */
const MAX_HEADERS = 64;

export interface RawRequest {
  /** The request target, e.g. /v1/data/app/allow. */
  url: string;
  /** Lower-case names, as Node's IncomingMessage.headers. */
  headers: IncomingHttpHeaders;
  /** The body's bytes within the buffer read. */
  bodyStart: number;
  bodyEnd: number;
}

/** More bytes are needed before the request at `start` can be read. */
export const PARTIAL = 0;
/** The request at `start` is outside the subset: Node reads it. */
export const OTHER = 1;

const CR = 13;
const LF = 10;
const SP = 32;
const HT = 9;
const COLON = 58;

/** RFC 9110 tchar: what a header name may hold. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~") TCHAR[c.charCodeAt(0)] = 1;
for (let c = 48; c <= 57; c++) TCHAR[c] = 1;
for (let c = 65; c <= 90; c++) TCHAR[c] = 1;
for (let c = 97; c <= 122; c++) TCHAR[c] = 1;

/** The characters of a plain /v1/data path: no %, '.', '?', '#' (their meaning would change under URL normalisation). */
const PATH_CHAR = new Uint8Array(128);
for (const c of '_-/') PATH_CHAR[c.charCodeAt(0)] = 1;
for (let c = 48; c <= 57; c++) PATH_CHAR[c] = 1;
for (let c = 65; c <= 90; c++) PATH_CHAR[c] = 1;
for (let c = 97; c <= 122; c++) PATH_CHAR[c] = 1;

/**
 * Whether a URL is a plain decision path, `/v1/data` or `/v1/data/` followed by PATH_CHAR
 * characters: the requests both decision fast paths (this one and fast-decision.ts) take.
 */
export function isPlainDecision(url: string): boolean {
  if (!url.startsWith('/v1/data')) return false;
  const n = url.length;
  if (n === 8) return true;
  if (url.charCodeAt(8) !== 47 /* / */) return false;
  for (let i = 9; i < n; i++) {
    const c = url.charCodeAt(i);
    if (c >= 128 || PATH_CHAR[c] !== 1) return false;
  }
  return true;
}

const PREFIX = Buffer.from('POST /v1/data');
const VERSION = Buffer.from(' HTTP/1.1\r\n');

/**
 * Reads the request starting at `start` of `b`: the request, PARTIAL (its head or body
 * has not all arrived) or OTHER. `maxBody` is the server's body limit: a longer declared
 * body is OTHER (Node's path answers it with the limit's error).
 */
export function readRawRequest(b: Buffer, start: number, maxBody: number): RawRequest | typeof PARTIAL | typeof OTHER {
  const n = b.length;
  // the request line: POST /v1/data[/plain] HTTP/1.1
  for (let i = 0; i < PREFIX.length; i++) {
    if (start + i >= n) return PARTIAL;
    if (b[start + i] !== PREFIX[i]) return OTHER;
  }
  let i = start + PREFIX.length;
  if (i >= n) return PARTIAL;
  if (b[i] === 47 /* / */) {
    for (i++; i < n && b[i]! < 128 && PATH_CHAR[b[i]!] === 1; i++);
  }
  if (i >= n) return PARTIAL;
  if (b[i] !== SP) return OTHER;
  const urlEnd = i;
  for (let k = 0; k < VERSION.length; k++, i++) {
    if (i >= n) return PARTIAL;
    if (b[i] !== VERSION[k]) return OTHER;
  }
  const url = b.toString('latin1', start + 5, urlEnd);
  const headers: IncomingHttpHeaders = Object.create(null) as IncomingHttpHeaders;
  let count = 0;
  let length = -1;
  let host = false;
  // header lines up to the empty line
  for (;;) {
    if (i - start > MAX_HEAD_BYTES) return OTHER;
    if (i >= n) return PARTIAL;
    if (b[i] === CR) {
      if (i + 1 >= n) return PARTIAL;
      if (b[i + 1] !== LF) return OTHER;
      i += 2;
      break;
    }
    // the name
    const nameStart = i;
    for (; i < n; i++) {
      const c = b[i]!;
      if (c >= 128 || TCHAR[c] !== 1) break;
    }
    if (i >= n) return PARTIAL;
    if (i === nameStart || b[i] !== COLON) return OTHER;
    const nameEnd = i++;
    // optional whitespace, the value, optional whitespace, CRLF
    while (i < n && (b[i] === SP || b[i] === HT)) i++;
    const valueStart = i;
    let valueEnd = i;
    for (; i < n; i++) {
      const c = b[i]!;
      if (c > SP && c < 127) valueEnd = i + 1;
      else if (c !== SP && c !== HT) break;
    }
    if (i >= n) return PARTIAL;
    if (b[i] !== CR) return OTHER;
    if (i + 1 >= n) return PARTIAL;
    if (b[i + 1] !== LF) return OTHER;
    i += 2;
    if (++count > MAX_HEADERS) return OTHER;
    const name = b.toString('latin1', nameStart, nameEnd).toLowerCase();
    if (headers[name] !== undefined) return OTHER;
    const value = b.toString('latin1', valueStart, valueEnd);
    switch (name) {
      case 'content-length':
        if (!/^\d{1,15}$/.test(value)) return OTHER;
        // llhttp refuses a tab after the digits (HPE_INVALID_CONTENT_LENGTH); spaces it allows
        for (let k = valueEnd; k < i - 2; k++) if (b[k] !== SP) return OTHER;
        length = Number(value);
        break;
      case 'host':
        host = true;
        break;
      case 'connection':
        if (value.toLowerCase() !== 'keep-alive') return OTHER;
        break;
      // llhttp reads Proxy-Connection as Connection (close: Node ends the connection); Node's
      // req.headers gives Set-Cookie as an array and drops __proto__ (a plain object's setter)
      case 'proxy-connection':
      case 'set-cookie':
      case '__proto__':
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
      case 'content-encoding':
        return OTHER;
    }
    headers[name] = value;
  }
  if (!host || length < 0 || length > maxBody) return OTHER;
  if (n - i < length) return i - start + length > MAX_HEAD_BYTES + maxBody ? OTHER : PARTIAL;
  return { url, headers, bodyStart: i, bodyEnd: i + length };
}
