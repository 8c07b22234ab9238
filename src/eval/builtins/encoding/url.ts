// Go's net/url pieces the encoding built-ins need: QueryEscape/QueryUnescape,
// ParseQuery, Values.Encode, and url.Parse (for uri.parse / uri.is_valid).

export class URLError extends Error {}

type Mode = 'path' | 'host' | 'zone' | 'userinfo' | 'query' | 'fragment';

function isUnreserved(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
}

/** Go's shouldEscape for one byte. */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isUnreserved(c)) return false;
  if (mode === 'host' || mode === 'zone') {
    if ('!$&\'()*+,;=:[]<>"'.includes(String.fromCharCode(c))) return false;
  }
  switch (String.fromCharCode(c)) {
    case '$':
    case '&':
    case '+':
    case ',':
    case '/':
    case ':':
    case ';':
    case '=':
    case '?':
    case '@':
      if (mode === 'path') return c === 0x3f;
      if (mode === 'userinfo') return c === 0x40 || c === 0x2f || c === 0x3f || c === 0x3a;
      if (mode === 'query') return true;
      if (mode === 'fragment') return false;
      return true;
  }
  if (mode === 'fragment' && '!()*'.includes(String.fromCharCode(c))) return false;
  return true;
}

function escape(s: string, mode: Mode | 'queryComponent'): string {
  const bytes = Buffer.from(s, 'utf8');
  let out = '';
  for (const b of bytes) {
    if (mode === 'queryComponent') {
      if (b === 0x20) out += '+';
      else if (shouldEscape(b, 'query')) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
      else out += String.fromCharCode(b);
    } else if (shouldEscape(b, mode)) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
    else out += String.fromCharCode(b);
  }
  return out;
}

/** url.QueryEscape */
export function queryEscape(s: string): string {
  return escape(s, 'queryComponent');
}

const HEX = /^[0-9a-fA-F]{2}$/;

/** Go's unescape (errors as url.EscapeError / InvalidHostError). */
function unescape(s: string, mode: Mode | 'queryComponent'): string {
  const bytes = Buffer.from(s, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x25) {
      const hex = bytes.subarray(i + 1, i + 3).toString('latin1');
      if (!HEX.test(hex)) {
        const frag = bytes.subarray(i, Math.min(i + 3, bytes.length)).toString('utf8');
        throw new URLError(`invalid URL escape ${JSON.stringify(frag)}`);
      }
      out.push(parseInt(hex, 16));
      i += 2;
    } else if (b === 0x2b && mode === 'queryComponent') out.push(0x20);
    else {
      if ((mode === 'host' || mode === 'zone') && b < 0x80 && shouldEscape(b, mode))
        throw new URLError(`invalid character ${JSON.stringify(String.fromCharCode(b))} in host name`);
      out.push(b);
    }
  }
  return Buffer.from(out).toString('utf8');
}

/** url.QueryUnescape */
export function queryUnescape(s: string): string {
  return unescape(s, 'queryComponent');
}

/** url.ParseQuery: values by key in first-seen order; the first error is reported. */
export function parseQuery(q: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let firstErr: URLError | undefined;
  for (const part of q.split('&')) {
    if (part === '') continue;
    if (part.includes(';')) {
      firstErr ??= new URLError('invalid semicolon separator in query');
      continue;
    }
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawVal = eq < 0 ? '' : part.slice(eq + 1);
    try {
      const k = queryUnescape(rawKey);
      const v = queryUnescape(rawVal);
      const list = out.get(k);
      if (list) list.push(v);
      else out.set(k, [v]);
    } catch (e) {
      if (!(e instanceof URLError)) throw e;
      firstErr ??= e;
    }
  }
  if (firstErr) throw firstErr;
  return out;
}

export interface ParsedURL {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

/** url.Parse. Errors read `parse "<url>": <reason>`. */
export function parseURL(raw: string): ParsedURL {
  try {
    return parseInner(raw);
  } catch (e) {
    if (e instanceof URLError) throw new URLError(`parse ${JSON.stringify(raw)}: ${e.message}`);
    throw e;
  }
}

function parseInner(raw: string): ParsedURL {
  const hashAt = raw.indexOf('#');
  const frag = hashAt >= 0 ? raw.slice(hashAt + 1) : '';
  let rest = hashAt >= 0 ? raw.slice(0, hashAt) : raw;
  const u: ParsedURL = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', fragment: '' };
  if (/[\x00-\x1f\x7f]/.test(rest)) throw new URLError('net/url: invalid control character in URL');
  if (rest === '*') {
    u.path = '*';
    return u;
  }
  // Scheme
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new URLError('missing protocol scheme');
      u.scheme = rest.slice(0, i).toLowerCase();
      rest = rest.slice(i + 1);
    }
    break;
  }
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') {
      u.opaque = rest;
      u.fragment = frag ? unescape(frag, 'fragment') : '';
      return u;
    }
    const slash = rest.indexOf('/');
    const seg = slash < 0 ? rest : rest.slice(0, slash);
    if (seg.includes(':')) throw new URLError('first path segment in URL cannot contain colon');
  }
  if ((u.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const after = rest.slice(2);
    const slash = after.indexOf('/');
    const authority = slash < 0 ? after : after.slice(0, slash);
    rest = slash < 0 ? '' : after.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new URLError('net/url: invalid userinfo');
      unescape(userinfo, 'userinfo');
    }
    u.host = parseHost(at >= 0 ? authority.slice(at + 1) : authority);
  }
  u.path = unescape(rest, 'path');
  u.rawPath = escape(u.path, 'path') === rest ? '' : rest;
  u.fragment = frag ? unescape(frag, 'fragment') : '';
  return u;
}

function validOptionalPort(p: string): boolean {
  return p === '' || /^:\d*$/.test(p);
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new URLError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${JSON.stringify(colonPort)} after host`);
    }
  }
  return unescape(host, 'host');
}

/** URL.Hostname() and URL.Port(). */
export function splitHostPort(host: string): { hostname: string; port: string } {
  let hostname = host;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && /^:\d*$/.test(host.slice(colon)) && (!host.startsWith('[') || host.lastIndexOf(']') < colon)) {
    hostname = host.slice(0, colon);
    port = host.slice(colon + 1);
  }
  if (hostname.startsWith('[') && hostname.endsWith(']')) hostname = hostname.slice(1, -1);
  return { hostname, port };
}
