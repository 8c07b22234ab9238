// Reading only part of a JSON document. A policy usually reads a few paths of a large
// input (a Terraform plan's resource_changes[*].change.actions, not its planned values):
// `parseJSONSparse` materialises the values under the paths a `Needs` tree names and
// skips the rest, while still checking every character of the text, so a malformed
// document is an error wherever the fault is. What it returns is what parseJSON returns
// with the unneeded object members (and unneeded array elements) left out: exact numbers,
// duplicate keys resolved as JSON.parse does (the last one wins), the same depth limit.

import { DEFAULT_MAX_DEPTH, JSONParseError, parseJSON, type ParseOptions } from './json-read.js';
import type { Value } from './types.js';
import { MAX_EXPONENT } from './number.js';

/**
 * The parts of a document that are read. `all`: the whole value. Otherwise the members
 * named in `keys` (each with its own needs) and, through `any`, every member or element
 * (an iteration, a key not known in advance). A node that exists is itself needed: its
 * value is present, reduced to what its children need.
 */
export interface Needs {
  all: boolean;
  keys: Map<string, Needs>;
  any: Needs | undefined;
  /** On a root: how much of the documents read with it was built (see readNeeded). */
  history?: { reads: number; built: number };
}

export function newNeeds(): Needs {
  return { all: false, keys: new Map(), any: undefined };
}

/** Needs of member `key`: its own and those every member has (merged), or undefined when none. */
function memberNeeds(n: Needs, key: string): Needs | undefined {
  const own = n.keys.get(key);
  if (own === undefined) return n.any;
  const any = n.any;
  // (every member kept as a shell adds nothing to a member with needs of its own: no merged copy)
  if (any === undefined || (!any.all && any.keys.size === 0 && any.any === undefined)) return own;
  return mergeNeeds(own, any);
}

/** The union of two needs (a new tree where they differ). */
export function mergeNeeds(a: Needs, b: Needs): Needs {
  if (a.all) return a;
  if (b.all) return b;
  const keys = new Map(a.keys);
  for (const [k, v] of b.keys) {
    const x = keys.get(k);
    keys.set(k, x === undefined ? v : mergeNeeds(x, v));
  }
  const any = a.any === undefined ? b.any : b.any === undefined ? a.any : mergeNeeds(a.any, b.any);
  return { all: false, keys, any };
}

/**
 * Parses the parts of `text` that `needs` names (see the top of this file). Throws
 * JSONParseError for malformed text anywhere in it, or nesting deeper than maxDepth.
 */
export function parseJSONSparse(text: string, needs: Needs, opts: ParseOptions = {}): Value {
  return sparse(text, needs, opts).value;
}

function sparse(text: string, needs: Needs, opts: ParseOptions): { value: Value; built: number } {
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (needs.all) return { value: parseJSON(text, opts), built: text.length };
  const r = new SparseReader(text, maxDepth);
  r.ws();
  const v = r.value(0, needs);
  r.ws();
  if (r.pos < text.length) r.fail('unexpected data after the JSON value');
  return { value: v, built: r.built };
}

/** parseJSON's own scan (exact numbers, depth) runs from 2 * its depth limit (2,000 characters) on. */
const MIN_LENGTH = 2 * DEFAULT_MAX_DEPTH;
/** Reads after which the share built decides; one read in RECHECK checks it again. */
const LEARN = 8;
const RECHECK = 64;
/** Above this share of the text built, parseJSON is cheaper (V8's JSON.parse builds faster than this reader skips). */
const MAX_BUILT = 0.2;

/**
 * Reads `text` for a reader with these needs: sparsely when the text is long enough for
 * parseJSON to scan it first and while the parts built stay a small share of the
 * documents (remembered on `needs`), otherwise whole with parseJSON. Either
 * way the value read is the same where the needs look, and malformed text is an error.
 */
export function readNeeded(text: string, needs: Needs, opts: ParseOptions = {}): Value {
  // below this, parseJSON is JSON.parse alone, which this reader does not beat
  if (text.length < MIN_LENGTH) return parseJSON(text, opts);
  const h = (needs.history ??= { reads: 0, built: 0 });
  h.reads++;
  if (h.reads > LEARN && h.built > MAX_BUILT && h.reads % RECHECK !== 0) return parseJSON(text, opts);
  const r = sparse(text, needs, opts);
  const share = text.length === 0 ? 0 : r.built / text.length;
  // a running average, so that one odd document does not switch the reader
  h.built = h.reads === 1 ? share : h.built * 0.75 + share * 0.25;
  return r.value;
}

const enum C {
  Quote = 34,
  Backslash = 92,
  Comma = 44,
  Colon = 58,
  OpenBrace = 123,
  CloseBrace = 125,
  OpenBracket = 91,
  CloseBracket = 93,
}

/** Characters allowed after a backslash, besides `u`: " \ / b f n r t. */
function simpleEscape(c: number): boolean {
  return c === 34 || c === 92 || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116;
}

function indexOrInfinity(i: number): number {
  return i < 0 ? Infinity : i;
}

const CONTROL = /[\x00-\x1f]/g;

/** The index of the first character below U+0020 at or after `from`, or Infinity. */
function nextControlChar(s: string, from: number): number {
  CONTROL.lastIndex = from;
  const m = CONTROL.exec(s);
  return m === null ? Infinity : m.index;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

class SparseReader {
  pos = 0;
  /** Characters of the text built into values (the rest was only checked). */
  built = 0;
  constructor(
    private readonly s: string,
    private readonly maxDepth: number,
  ) {}

  fail(what: string): never {
    const c = this.s[this.pos];
    throw new JSONParseError(`${what} at offset ${this.pos} (found ${c === undefined ? 'end of input' : `'${c}'`})`, this.pos);
  }

  ws(): void {
    const s = this.s;
    let i = this.pos;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.pos = i;
  }

  /** The value at pos, reduced to what `n` needs. */
  value(depth: number, n: Needs): Value {
    if (n.all) return this.whole(depth);
    const c = this.s.charCodeAt(this.pos);
    if (c === C.OpenBrace) return this.object(depth + 1, n);
    if (c === C.OpenBracket) return this.array(depth + 1, n);
    // a scalar has no parts: it is read whole
    return this.whole(depth);
  }

  /** The whole value at pos, as parseJSON reads it (checked by the skip first). */
  private whole(depth: number): Value {
    const s = this.s;
    const start = this.pos;
    const c = s.charCodeAt(start);
    if (c === C.Quote) {
      const v = this.string();
      this.built += this.pos - start;
      return v;
    }
    this.skip(depth);
    this.built += this.pos - start;
    const text = s.slice(start, this.pos);
    if (c === 116) return true;
    if (c === 102) return false;
    if (c === 110) return null;
    // numbers and composites: the skip has checked the text and its depth, so parseJSON
    // only has to pick JSON.parse or its exact reader (no depth scan of its own)
    return parseJSON(text, { maxDepth: Infinity });
  }

  private object(depth: number, n: Needs): Value {
    if (depth > this.maxDepth) this.fail(`document nested deeper than ${this.maxDepth} levels`);
    const s = this.s;
    this.pos++;
    const out: Record<string, Value> = {};
    this.ws();
    if (s.charCodeAt(this.pos) === C.CloseBrace) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (s.charCodeAt(this.pos) !== C.Quote) this.fail('expected object key');
      const k = this.string();
      this.ws();
      if (s.charCodeAt(this.pos) !== C.Colon) this.fail("expected ':'");
      this.pos++;
      this.ws();
      const m = memberNeeds(n, k);
      // a key's needs are the same at each occurrence: duplicates are all read (the
      // last one stays, as JSON.parse keeps it) or all skipped
      if (m === undefined) this.skip(depth);
      else {
        const v = this.value(depth, m);
        // an own data property even for "__proto__", never the prototype setter
        if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
        else out[k] = v;
      }
      this.ws();
      const c = s.charCodeAt(this.pos);
      if (c === C.CloseBrace) {
        this.pos++;
        return out;
      }
      if (c !== C.Comma) this.fail("expected ',' or '}'");
      this.pos++;
    }
  }

  private array(depth: number, n: Needs): Value {
    if (depth > this.maxDepth) this.fail(`document nested deeper than ${this.maxDepth} levels`);
    const s = this.s;
    this.pos++;
    const out: Value[] = [];
    const each = n.any;
    this.ws();
    if (s.charCodeAt(this.pos) === C.CloseBracket) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      // elements are reached only by iteration or an index, both of which set `any`
      if (each === undefined) this.skip(depth);
      else out.push(this.value(depth, each));
      this.ws();
      const c = s.charCodeAt(this.pos);
      if (c === C.CloseBracket) {
        this.pos++;
        return out;
      }
      if (c !== C.Comma) this.fail("expected ',' or ']'");
      this.pos++;
    }
  }

  /** Reads a string at pos (checked), returning its value. */
  private string(): string {
    const s = this.s;
    const start = this.pos;
    const end = this.stringEnd(start);
    this.pos = end;
    if (end - start === 2) return '';
    const raw = s.slice(start, end);
    return raw.indexOf('\\') < 0 ? raw.slice(1, -1) : (JSON.parse(raw) as string);
  }

  /**
   * Where the next backslash and the next control character (below U+0020) are, at or
   * after where they were last looked for: most strings hold neither, and then their end
   * is the next quote, found by indexOf (native, many times faster than a loop here).
   */
  private nextBackslash = -1;
  private nextControl = -1;

  /** The index after the closing quote of the string starting at `start`; checks escapes and control characters. */
  private stringEnd(start: number): number {
    const s = this.s;
    const from = start + 1;
    const q = s.indexOf('"', from);
    if (q >= 0) {
      if (this.nextBackslash < from) this.nextBackslash = indexOrInfinity(s.indexOf('\\', from));
      if (this.nextControl < from) this.nextControl = nextControlChar(s, from);
      if (this.nextBackslash > q && this.nextControl > q) return q + 1;
    }
    return this.stringEndSlow(start);
  }

  /** stringEnd character by character: escapes, control characters, errors. */
  private stringEndSlow(start: number): number {
    const s = this.s;
    const n = s.length;
    let i = start + 1;
    for (;;) {
      if (i >= n) {
        this.pos = i;
        this.fail('unterminated string');
      }
      const c = s.charCodeAt(i);
      if (c === C.Quote) return i + 1;
      if (c === C.Backslash) {
        const e = s.charCodeAt(i + 1);
        if (simpleEscape(e)) i += 2;
        else if (e === 117 && isHex(s.charCodeAt(i + 2)) && isHex(s.charCodeAt(i + 3)) && isHex(s.charCodeAt(i + 4)) && isHex(s.charCodeAt(i + 5))) i += 6;
        else {
          this.pos = i;
          this.fail('invalid escape in string');
        }
      } else if (c < 0x20) {
        this.pos = i;
        this.fail('invalid control character in string');
      } else i++;
    }
  }

  /**
   * Moves past the value at pos, checking it; `depth` is that of the enclosing value. One
   * loop with a stack of the open containers (no call per member or element): skipping is
   * most of the work when a policy reads a small part of a large document.
   */
  skip(depth: number): void {
    const s = this.s;
    // the closing character of each open container, innermost last
    const closers: number[] = [];
    let i = this.pos;
    let c: number;
    for (;;) {
      // a value at i (whitespace first)
      c = s.charCodeAt(i);
      while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++i);
      if (c === C.Quote) i = this.stringEnd(i);
      else if (c === C.OpenBrace || c === C.OpenBracket) {
        if (++depth > this.maxDepth) {
          this.pos = i;
          this.fail(`document nested deeper than ${this.maxDepth} levels`);
        }
        const object = c === C.OpenBrace;
        c = s.charCodeAt(++i);
        while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++i);
        if (c === (object ? C.CloseBrace : C.CloseBracket)) {
          i++;
          depth--;
        } else {
          closers.push(object ? C.CloseBrace : C.CloseBracket);
          if (object) i = this.memberKey(i);
          continue;
        }
      } else {
        this.pos = i;
        if (c === 116) this.literal('true');
        else if (c === 102) this.literal('false');
        else if (c === 110) this.literal('null');
        else this.number();
        i = this.pos;
      }
      // after a value: a comma (next member or element) or the close of its container
      for (;;) {
        const n = closers.length;
        if (n === 0) {
          this.pos = i;
          return;
        }
        c = s.charCodeAt(i);
        while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++i);
        const close = closers[n - 1]!;
        if (c === C.Comma) {
          i++;
          if (close === C.CloseBrace) i = this.memberKey(i);
          break;
        }
        if (c !== close) {
          this.pos = i;
          this.fail(close === C.CloseBrace ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        i++;
        closers.pop();
        depth--;
      }
    }
  }

  /** Past an object member's key and its colon, at i (whitespace first): where its value starts. */
  private memberKey(i: number): number {
    const s = this.s;
    let c = s.charCodeAt(i);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++i);
    if (c !== C.Quote) {
      this.pos = i;
      this.fail('expected object key');
    }
    i = this.stringEnd(i);
    c = s.charCodeAt(i);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++i);
    if (c !== C.Colon) {
      this.pos = i;
      this.fail("expected ':'");
    }
    return i + 1;
  }

  private literal(word: string): void {
    if (!this.s.startsWith(word, this.pos)) this.fail('invalid literal');
    this.pos += word.length;
  }

  /** -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at pos. */
  private number(): void {
    const s = this.s;
    let i = this.pos;
    let c = s.charCodeAt(i);
    if (c === 45) c = s.charCodeAt(++i);
    if (c === 48) c = s.charCodeAt(++i);
    else if (c >= 49 && c <= 57) {
      do c = s.charCodeAt(++i);
      while (c >= 48 && c <= 57);
    } else return this.fail(Number.isNaN(c) ? 'unexpected end of JSON input' : 'invalid character');
    if (c === 46) {
      c = s.charCodeAt(++i);
      if (!(c >= 48 && c <= 57)) {
        this.pos = i;
        this.fail('invalid number');
      }
      do c = s.charCodeAt(++i);
      while (c >= 48 && c <= 57);
    }
    if (c === 101 || c === 69) {
      c = s.charCodeAt(++i);
      if (c === 43 || c === 45) c = s.charCodeAt(++i);
      if (!(c >= 48 && c <= 57)) {
        this.pos = i;
        this.fail('invalid number');
      }
      const digits = i;
      do c = s.charCodeAt(++i);
      while (c >= 48 && c <= 57);
      // the whole reader refuses an exponent past MAX_EXPONENT (parseDecimal): so must a skipped
      // number (nine digits or fewer are below it: no slice for them)
      if (i - digits > 9 && Number(s.slice(digits, i)) > MAX_EXPONENT) {
        this.pos = i;
        this.fail('invalid number');
      }
    }
    this.pos = i;
  }
}
