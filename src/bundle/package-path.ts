// Reads the package path of a Rego module without the full parser: enough to check a
// bundle's roots (which only look at `package` lines) before the engine compiles it.
// Parse errors proper are reported by the parser when the module is loaded.

import { BundleError } from './types.js';

/** Skips whitespace and comments from `i`; returns the next index. */
function skipTrivia(src: string, i: number): number {
  for (;;) {
    while (i < src.length && /\s/.test(src[i]!)) i++;
    if (src[i] === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    return i;
  }
}

/** The package path of `source` as segments, without the leading `data`. */
export function packagePathOf(source: string, file: string): string[] {
  let i = skipTrivia(source, 0);
  if (!source.startsWith('package', i) || /[\w]/.test(source[i + 7] ?? '')) {
    throw new BundleError(`${file}: rego_parse_error: package expected`);
  }
  i = skipTrivia(source, i + 7);
  const out: string[] = [];
  const ident = /[A-Za-z_][A-Za-z0-9_]*/y;
  ident.lastIndex = i;
  let m = ident.exec(source);
  if (!m) throw new BundleError(`${file}: rego_parse_error: package name expected`);
  out.push(m[0]);
  i += m[0].length;
  for (;;) {
    if (source[i] === '.') {
      ident.lastIndex = i + 1;
      m = ident.exec(source);
      if (!m) break;
      out.push(m[0]);
      i += 1 + m[0].length;
    } else if (source[i] === '[') {
      const str = /\[\s*"((?:[^"\\]|\\.)*)"\s*\]/y;
      str.lastIndex = i;
      const s = str.exec(source);
      if (!s) break;
      out.push(JSON.parse(`"${s[1]}"`) as string);
      i += s[0].length;
    } else break;
  }
  // `package data.x` is written by some tools; the path is still x.
  if (out[0] === 'data' && out.length > 1) out.shift();
  return out;
}
