// The one JSON reader. `parseJSON` reads a Rego value with exact numbers: JSON.parse
// whenever it is exact, and the reader below when a number a double cannot hold
// (12345678901234567890, 1e400, -0) or a too-deep nesting shows up in a cheap scan.
// `parseJSONText` reads a tree whose numbers are built from their literal text (bundle
// signatures hash numbers as written). Nesting depth is bounded so a hostile document
// cannot exhaust the stack of whatever walks it later; errors carry the offset.

import { makeNumber, parseDecimal } from './number.js';
import { newPlainObject } from './object.js';
import type { Value } from './types.js';

export const DEFAULT_MAX_DEPTH = 1000;

export class JSONParseError extends Error {
  constructor(
    message: string,
    readonly offset = -1,
  ) {
    super(message);
    this.name = 'JSONParseError';
  }
}

export interface ParseOptions {
  maxDepth?: number;
}

/** A JSON tree whose numbers are produced by `num` from their literal text. */
export type JSONTree<N> = null | boolean | string | N | JSONTree<N>[] | { [key: string]: JSONTree<N> };

/** Parses one JSON document into a Rego value. Throws JSONParseError on malformed or too deeply nested text. */
export function parseJSON(text: string, opts: ParseOptions = {}): Value {
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  // Most documents are short and hold only ordinary numbers: JSON.parse at once, with no
  // scan of our own. Nesting deeper than maxDepth needs more than 2 * maxDepth characters,
  // and a number JSON.parse would round shows up in a cheap regular-expression test.
  const exotic = text.length > 2 * maxDepth ? scanText(text, maxDepth) : MAYBE_EXOTIC.test(text);
  if (!exotic) {
    try {
      return JSON.parse(text) as Value;
    } catch (e) {
      throw new JSONParseError((e as Error).message);
    }
  }
  return new Reader<Value>(text, exactNumber, newPlainObject, maxDepth).document();
}

/**
 * Parses JSON text keeping each number's literal text (through `num`). A UTF-8 byte order
 * mark is tolerated, as Go's decoder in OPA's util does; duplicate keys keep the last value.
 */
export function parseJSONText<N>(text: string, num: (literal: string) => N, opts: ParseOptions = {}): JSONTree<N> {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  return new Reader<JSONTree<N>>(text, num, () => ({}), opts.maxDepth ?? 10_000, start).document();
}

function exactNumber(text: string): Value {
  const d = parseDecimal(text);
  if (!d) throw new JSONParseError(`invalid number ${text}`);
  return makeNumber(d.mant, d.exp, text);
}

/**
 * A number token (after the start, whitespace, ':', ',' or '[') with 16+ digits, an
 * exponent, or negative zero. It may also match inside a string: that only costs the
 * exact reader, which reads strings correctly.
 */
const MAYBE_EXOTIC = /(?:^|[\s:,[])(?:-?\d[\d.]{15}|-?\d+(?:\.\d+)?[eE]|-0(?:\.0+)?(?=[\s,\]}]|$))/;

/**
 * One pass over the text: checks nesting depth and looks for number literals that
 * JSON.parse would round (16+ digits, exponents, negative zero).
 */
function scanText(text: string, maxDepth: number): boolean {
  let depth = 0;
  let exotic = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > maxDepth) throw new JSONParseError(`document nested deeper than ${maxDepth} levels`, i);
    } else if (c === 93 || c === 125) {
      depth--;
    } else if (!exotic && ((c >= 48 && c <= 57) || c === 45)) {
      let digits = 0;
      const start = i;
      for (; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d >= 48 && d <= 57) digits++;
        else if (d === 101 || d === 69) exotic = true;
        else if (d !== 46 && d !== 43 && d !== 45) break;
      }
      if (digits > 15) exotic = true;
      if (text.charCodeAt(start) === 45 && /^-0(\.0*)?(?![\d.eE])/.test(text.slice(start, start + 32))) exotic = true;
      i--;
    }
  }
  return exotic;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** Recursive descent over JSON text; T is the tree type, numbers come from `num`. */
class Reader<T> {
  constructor(
    private readonly s: string,
    private readonly num: (literal: string) => unknown,
    private readonly newObject: () => Record<string, unknown>,
    private readonly maxDepth: number,
    private pos = 0,
  ) {}

  document(): T {
    this.ws();
    const v = this.value(0);
    this.ws();
    if (this.pos < this.s.length) this.fail('unexpected data after the JSON value');
    return v as T;
  }

  private fail(what: string): never {
    const c = this.s[this.pos];
    throw new JSONParseError(`${what} at offset ${this.pos} (found ${c === undefined ? 'end of input' : `'${c}'`})`, this.pos);
  }

  private ws(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.pos++;
      else break;
    }
  }

  private value(depth: number): unknown {
    const c = this.s[this.pos];
    switch (c) {
      case '{':
        return this.object(depth + 1);
      case '[':
        return this.array(depth + 1);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default: {
        NUMBER.lastIndex = this.pos;
        const m = NUMBER.exec(this.s);
        if (!m) return this.fail(c === undefined ? 'unexpected end of JSON input' : 'invalid character');
        this.pos += m[0].length;
        return this.num(m[0]);
      }
    }
  }

  private literal(word: string, v: boolean | null): boolean | null {
    if (!this.s.startsWith(word, this.pos)) this.fail('invalid literal');
    this.pos += word.length;
    return v;
  }

  private string(): string {
    // Find the closing quote; text without escapes is a slice, escapes are decoded by JSON.parse.
    const s = this.s;
    const start = this.pos;
    let escaped = false;
    let i = start + 1;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 92) {
        escaped = true;
        i++;
      } else if (c === 34) break;
      else if (c < 0x20) {
        this.pos = i;
        this.fail('invalid control character in string');
      }
    }
    if (i >= s.length) this.fail('unterminated string');
    this.pos = i + 1;
    if (!escaped) return s.slice(start + 1, i);
    try {
      return JSON.parse(s.slice(start, i + 1)) as string;
    } catch {
      this.pos = start;
      return this.fail('invalid escape in string');
    }
  }

  private array(depth: number): unknown[] {
    if (depth > this.maxDepth) this.fail(`document nested deeper than ${this.maxDepth} levels`);
    this.pos++;
    const out: unknown[] = [];
    this.ws();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value(depth));
      this.ws();
      const c = this.s[this.pos];
      if (c === ']') {
        this.pos++;
        return out;
      }
      if (c !== ',') this.fail("expected ',' or ']'");
      this.pos++;
    }
  }

  private object(depth: number): Record<string, unknown> {
    if (depth > this.maxDepth) this.fail(`document nested deeper than ${this.maxDepth} levels`);
    this.pos++;
    const out = this.newObject();
    this.ws();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.pos] !== '"') this.fail('expected object key');
      const k = this.string();
      this.ws();
      if (this.s[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      this.ws();
      const v = this.value(depth);
      // an own data property even for "__proto__", never the prototype setter
      if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      else out[k] = v;
      this.ws();
      const c = this.s[this.pos];
      if (c === '}') {
        this.pos++;
        return out;
      }
      if (c !== ',') this.fail("expected ',' or '}'");
      this.pos++;
    }
  }
}
