// JSON text -> Rego value. JSON.parse is used whenever it is exact; a number a double
// cannot hold exactly (12345678901234567890, 1e400) goes through a small parser that keeps
// every digit as a BigNum, as OPA keeps json.Number. Nesting depth is bounded so that a
// hostile document cannot exhaust the stack of whatever walks it later.

import { makeNumber, parseDecimal, newPlainObject } from '../value/index.js';
import type { PlainObject, Value } from '../value/index.js';

export const DEFAULT_MAX_DEPTH = 1000;

export class JSONParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JSONParseError';
  }
}

export interface ParseOptions {
  maxDepth?: number;
}

/** Parses one JSON document. Throws JSONParseError on malformed or too deeply nested text. */
export function parseJSON(text: string, opts: ParseOptions = {}): Value {
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  // Most documents are short and hold only ordinary numbers: JSON.parse at once, with no
  // scan of our own. Nesting deeper than maxDepth needs more than 2 * maxDepth characters,
  // and a number JSON.parse would round shows up in a cheap regular-expression test.
  const exotic = text.length > 2 * maxDepth ? scanText(text, maxDepth).exotic : MAYBE_EXOTIC.test(text);
  if (!exotic) {
    try {
      return JSON.parse(text) as Value;
    } catch (e) {
      throw new JSONParseError((e as Error).message);
    }
  }
  return new Parser(text, maxDepth).document();
}

/**
 * A number token (after the start, whitespace, ':', ',' or '[') with 16+ digits, an
 * exponent, or negative zero. It may also match inside a string: that only costs the
 * exact parser, which reads strings correctly.
 */
const MAYBE_EXOTIC = /(?:^|[\s:,[])(?:-?\d[\d.]{15}|-?\d+(?:\.\d+)?[eE]|-0(?:\.0+)?(?=[\s,\]}]|$))/;

/**
 * One pass over the text: checks nesting depth and looks for number literals that
 * JSON.parse would round (16+ digits, exponents, negative zero).
 */
function scanText(text: string, maxDepth: number): { exotic: boolean } {
  let depth = 0;
  let exotic = false;
  const n = text.length;
  // Short texts cannot nest deeper than half their length.
  const checkDepth = n > 2 * maxDepth;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (checkDepth && ++depth > maxDepth) throw new JSONParseError(`document nested deeper than ${maxDepth} levels`);
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
  return { exotic };
}

class Parser {
  private pos = 0;
  constructor(
    private readonly s: string,
    private readonly maxDepth: number,
  ) {}

  document(): Value {
    this.ws();
    const v = this.value(0);
    this.ws();
    if (this.pos < this.s.length) this.fail('unexpected data after the JSON value');
    return v;
  }

  private fail(msg: string): never {
    throw new JSONParseError(`${msg} at position ${this.pos}`);
  }

  private ws(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.pos++;
      else break;
    }
  }

  private value(depth: number): Value {
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
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
        return this.fail(c === undefined ? 'unexpected end of JSON input' : `unexpected character ${JSON.stringify(c)}`);
    }
  }

  private literal(word: string, v: Value): Value {
    if (!this.s.startsWith(word, this.pos)) this.fail('invalid literal');
    this.pos += word.length;
    return v;
  }

  private number(): Value {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.pos, this.pos + 4096));
    if (!m) this.fail('invalid number');
    const text = m[0];
    this.pos += text.length;
    const d = parseDecimal(text);
    if (!d) this.fail('invalid number');
    return makeNumber(d.mant, d.exp, text);
  }

  private string(): string {
    // Find the closing quote, then let JSON.parse decode escapes exactly.
    const s = this.s;
    let i = this.pos + 1;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 92) i++;
      else if (c === 34) break;
    }
    if (i >= s.length) this.fail('unterminated string');
    const raw = s.slice(this.pos, i + 1);
    this.pos = i + 1;
    try {
      return JSON.parse(raw) as string;
    } catch {
      return this.fail('invalid string');
    }
  }

  private array(depth: number): Value[] {
    if (depth > this.maxDepth) this.fail(`document nested deeper than ${this.maxDepth} levels`);
    this.pos++;
    const out: Value[] = [];
    this.ws();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value(depth));
      this.ws();
      const c = this.s[this.pos++];
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']'");
    }
  }

  private object(depth: number): PlainObject {
    if (depth > this.maxDepth) this.fail(`document nested deeper than ${this.maxDepth} levels`);
    this.pos++;
    const out = newPlainObject();
    this.ws();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.pos] !== '"') this.fail('expected a string key');
      const k = this.string();
      this.ws();
      if (this.s[this.pos++] !== ':') this.fail("expected ':'");
      this.ws();
      out[k] = this.value(depth);
      this.ws();
      const c = this.s[this.pos++];
      if (c === '}') return out;
      if (c !== ',') this.fail("expected ',' or '}'");
    }
  }
}
