// Decoding of double-quoted Rego string literals: JSON string syntax, as OPA
// unquotes them with json.Unmarshal (invalid escapes are errors; lone surrogates
// become U+FFFD as in Go).

const SIMPLE: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** The value of a quoted literal (quotes included), or undefined when it is not valid JSON. */
export function decodeString(lit: string): string | undefined {
  const inner = lit.slice(1, -1);
  if (inner.indexOf('\\') < 0) {
    // Control characters are not allowed raw in JSON strings, but OPA only checks
    // when there is something to unescape.
    return inner;
  }
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    const code = c.charCodeAt(0);
    if (code < 0x20) return undefined;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = inner[++i];
    if (e === undefined) return undefined;
    if (e === 'u') {
      const hex = inner.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
      let cp = parseInt(hex, 16);
      i += 4;
      if (cp >= 0xd800 && cp < 0xdc00) {
        // A high surrogate must pair with a following \uDC00-\uDFFF escape.
        const m = /^\\u([dD][c-fC-F][0-9a-fA-F]{2})/.exec(inner.slice(i + 1, i + 7));
        if (m) {
          const lo = parseInt(m[1]!, 16);
          out += String.fromCharCode(cp, lo);
          i += 6;
          continue;
        }
        cp = 0xfffd;
      } else if (cp >= 0xdc00 && cp < 0xe000) {
        cp = 0xfffd;
      }
      out += String.fromCharCode(cp);
      continue;
    }
    const s = SIMPLE[e];
    if (s === undefined) return undefined;
    out += s;
  }
  return out;
}
