// A small JSON reader that keeps what JSON.parse throws away: the literal text of every
// number (bundle signatures hash numbers as written, and Rego numbers keep every digit)
// and precise error positions for messages like OPA's "bundle load failed on ...".

export class JSONTextError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'JSONTextError';
  }
}

/** A JSON tree whose numbers are produced by `num` from their literal text. */
export type JSONTree<N> = null | boolean | string | N | JSONTree<N>[] | { [key: string]: JSONTree<N> };

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Parses JSON text. Objects are created without a prototype-sensitive `__proto__`
 * (keys are defined as own data properties); duplicate keys keep the last value, as Go does.
 */
export function parseJSONText<N>(text: string, num: (literal: string) => N): JSONTree<N> {
  let i = 0;
  // A UTF-8 byte order mark is tolerated, as Go's decoder in OPA's util does.
  if (text.charCodeAt(0) === 0xfeff) i = 1;

  const fail = (what: string): never => {
    const at = i < text.length ? `'${text[i]}'` : 'end of input';
    throw new JSONTextError(`${what} at offset ${i} (found ${at})`, i);
  };
  const skip = (): void => {
    while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  };

  const parseString = (): string => {
    // Caller has checked text[i] === '"'.
    i++;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c < 0x20) fail('invalid control character in string');
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(start, i);
      const e = text[i + 1];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('invalid unicode escape');
          out += String.fromCharCode(parseInt(hex, 16));
          i += 4;
          break;
        }
        default:
          i++;
          fail('invalid escape in string');
      }
      i += 2;
      start = i;
    }
  };

  const NUM = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

  const parseValue = (depth: number): JSONTree<N> => {
    if (depth > 10000) fail('document nested too deeply');
    skip();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: { [key: string]: JSONTree<N> } = {};
      skip();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        skip();
        if (text[i] !== '"') fail('expected object key');
        const key = parseString();
        skip();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        const v = parseValue(depth + 1);
        Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        skip();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const arr: JSONTree<N>[] = [];
      skip();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        skip();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return parseString();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    NUM.lastIndex = i;
    const m = NUM.exec(text);
    if (m) {
      i += m[0].length;
      return num(m[0]);
    }
    return fail('invalid character');
  };

  const v = parseValue(0);
  skip();
  if (i < text.length) fail('unexpected data after top-level value');
  return v;
}
