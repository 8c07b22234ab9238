// The request target as Go's net/url reads it for OPA's Envoy plugin: the path
// percent-decoded (a bad escape is an error), the query split into each parameter's values.

import { RequestParseError } from './request-error.js';

/** Go's url.PathUnescape rules: every % starts a two-digit hex escape. */
function unescapeStrict(s: string, whole: string, plusIsSpace: boolean): string {
  if (!s.includes('%') && !(plusIsSpace && s.includes('+'))) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new RequestParseError(`parse "${whole}": invalid URL escape "${s.slice(i, i + 3)}"`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === '+' && plusIsSpace) bytes.push(0x20);
    else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * parsed_path: the URL path percent-decoded, leading slashes trimmed, split on "/";
 * parsed_query: each parameter's values in order (url.Parse and url.Query in Go).
 */
export function parsePathAndQuery(path: string): { parsedPath: string[]; parsedQuery: Record<string, string[]> } {
  if (/[\x00-\x1f\x7f]/.test(path)) throw new RequestParseError(`parse "${path}": net/url: invalid control character in URL`);
  const noFragment = path.split('#')[0]!;
  const q = noFragment.indexOf('?');
  const rawPath = q < 0 ? noFragment : noFragment.slice(0, q);
  const rawQuery = q < 0 ? '' : noFragment.slice(q + 1);
  const decoded = unescapeStrict(rawPath, path, false);
  const parsedPath = decoded.replace(/^\/+/, '').split('/');
  return { parsedPath, parsedQuery: parseQuery(rawQuery, false) };
}

/** url.ParseQuery: pairs split on "&"; with `strict`, a bad pair is an error, else it is dropped (url.Query()). */
export function parseQuery(raw: string, strict: boolean): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    if (pair.includes(';')) {
      if (strict) throw new RequestParseError('invalid semicolon separator in query');
      continue;
    }
    const eq = pair.indexOf('=');
    const [k, v] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    let key: string;
    let value: string;
    try {
      key = unescapeStrict(k, k, true);
      value = unescapeStrict(v, v, true);
    } catch (e) {
      if (strict) throw new RequestParseError((e as Error).message.replace(/^parse "[^"]*": /, ''));
      continue;
    }
    (out[key] ??= []).push(value);
  }
  return out;
}
