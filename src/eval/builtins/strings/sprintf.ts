// sprintf with Go's fmt semantics, applied to arguments converted the way OPA converts
// them: integers become Go ints (or *big.Int when they exceed int64), other numbers
// float64 (or their text when a float64 cannot hold them), strings stay strings, and
// every other value becomes its Rego text (so %v of a composite prints it in Rego syntax).

import { BigNum, numberText, toBigInt, toRegoString, type Value } from '../../../value/index.js';
import { runes } from '../args.js';

type Arg =
  | { kind: 'int'; v: bigint } // Go int (int64)
  | { kind: 'big'; v: bigint } // *big.Int
  | { kind: 'float'; v: number } // float64
  | { kind: 'string'; v: string };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function toArg(v: Value): Arg {
  if (typeof v === 'string') return { kind: 'string', v };
  if (typeof v === 'number' || v instanceof BigNum) {
    // OPA decides by the number's text: plain digits are an integer, anything else
    // (1.5, 1e21, 2e308) a float64 when one holds it, else the text itself.
    const b = /^-?\d+$/.test(numberText(v)) ? toBigInt(v) : undefined;
    if (b !== undefined) return b >= INT64_MIN && b <= INT64_MAX ? { kind: 'int', v: b } : { kind: 'big', v: b };
    const d = typeof v === 'number' ? v : v.toDouble();
    if (Number.isFinite(d)) return { kind: 'float', v: d };
    return { kind: 'string', v: (v as BigNum).text };
  }
  return { kind: 'string', v: toRegoString(v) };
}

const TYPE_NAME: Record<Arg['kind'], string> = { int: 'int', big: '*big.Int', float: 'float64', string: 'string' };

interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  sharpV: boolean;
  wid?: number;
  prec?: number;
}

function newFlags(): Flags {
  return { plus: false, minus: false, sharp: false, space: false, zero: false, sharpV: false };
}

/** Pads to the width (counted in runes), with zeros when the 0 flag is set. */
function pad(s: string, f: Flags, zeroOk = true): string {
  if (f.wid === undefined) return s;
  const n = f.wid - runes(s).length;
  if (n <= 0) return s;
  if (f.minus) return s + ' '.repeat(n);
  return (f.zero && zeroOk ? '0' : ' ').repeat(n) + s;
}

export function sprintf(format: string, values: Value[]): string {
  return new Printer(format, values.map(toArg)).run();
}

/** One run of Go's fmt.Sprintf: the format is read left to right, one directive at a time. */
class Printer {
  private out = '';
  private i = 0;
  private readonly end: number;
  /** The next argument to print. */
  private argNum = 0;
  /** Whether an explicit [n] index was used (then extra arguments are not reported). */
  private reordered = false;
  /** Whether the current directive's argument indexes are all valid. */
  private goodArgNum = true;

  constructor(
    private readonly format: string,
    private readonly args: Arg[],
  ) {
    this.end = format.length;
  }

  run(): string {
    const { format, end } = this;
    while (this.i < end) {
      const lasti = this.i;
      while (this.i < end && format[this.i] !== '%') this.i++;
      if (this.i > lasti) this.out += format.slice(lasti, this.i);
      if (this.i >= end) break;
      this.i++;
      if (!this.directive()) break;
    }
    return this.out + this.extra();
  }

  /** A directive after its `%`: flags, width, precision, verb. False when the format ends without a verb. */
  private directive(): boolean {
    const { format, end, args } = this;
    const f = this.flags();
    this.goodArgNum = true;
    if (!this.widthAndPrecision(f)) this.argNumber();
    if (this.i >= end) {
      this.out += '%!(NOVERB)';
      return false;
    }
    const verb = String.fromCodePoint(format.codePointAt(this.i)!);
    this.i += verb.length;
    if (verb === '%') this.out += '%';
    else if (!this.goodArgNum) this.out += `%!${verb}(BADINDEX)`;
    else if (this.argNum >= args.length) this.out += `%!${verb}(MISSING)`;
    else {
      if (verb === 'v') {
        f.sharpV = f.sharp;
        f.sharp = false;
        f.plus = false;
      }
      this.out += printArg(args[this.argNum++]!, verb, f);
    }
    return true;
  }

  private flags(): Flags {
    const { format, end } = this;
    const f = newFlags();
    flags: for (; this.i < end; this.i++) {
      switch (format[this.i]) {
        case '#':
          f.sharp = true;
          break;
        case '0':
          f.zero = !f.minus;
          break;
        case '+':
          f.plus = true;
          break;
        case '-':
          f.minus = true;
          f.zero = false;
          break;
        case ' ':
          f.space = true;
          break;
        default:
          break flags;
      }
    }
    return f;
  }

  /** `[n]` width `.` `[n]` precision, each possibly `*`; whether an index was read last. */
  private widthAndPrecision(f: Flags): boolean {
    const { format, end } = this;
    let afterIndex = this.argNumber();
    if (this.i < end && format[this.i] === '*') {
      this.i++;
      const w = this.intArg();
      if (w === undefined) this.out += '%!(BADWIDTH)';
      else if (w < 0) {
        f.wid = -w;
        f.minus = true;
        f.zero = false;
      } else f.wid = w;
      afterIndex = false;
    } else {
      f.wid = this.parseNum();
      if (afterIndex && f.wid !== undefined) this.goodArgNum = false;
    }
    if (this.i + 1 < end && format[this.i] === '.') {
      this.i++;
      if (afterIndex) this.goodArgNum = false;
      afterIndex = this.argNumber();
      if (this.i < end && format[this.i] === '*') {
        this.i++;
        const p = this.intArg();
        if (p === undefined) this.out += '%!(BADPREC)';
        else if (p >= 0) f.prec = p;
        afterIndex = false;
      } else f.prec = this.parseNum() ?? 0;
    }
    return afterIndex;
  }

  /** An `[n]` argument index at i: whether there was one. */
  private argNumber(): boolean {
    const { format, end } = this;
    if (this.i >= end || format[this.i] !== '[') return false;
    this.reordered = true;
    const close = format.indexOf(']', this.i + 1);
    if (close < 0) {
      this.goodArgNum = false;
      this.i = end;
      return true;
    }
    const text = format.slice(this.i + 1, close);
    const n = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(n >= 1 && n <= this.args.length)) this.goodArgNum = false;
    else this.argNum = n - 1;
    this.i = close + 1;
    return true;
  }

  /** The argument a `*` takes: an int of at most a million, else undefined. */
  private intArg(): number | undefined {
    if (this.argNum >= this.args.length) return undefined;
    const a = this.args[this.argNum++]!;
    if (a.kind !== 'int' || a.v > 1000000n || a.v < -1000000n) return undefined;
    return Number(a.v);
  }

  private parseNum(): number | undefined {
    const m = /^\d+/.exec(this.format.slice(this.i));
    if (!m) return undefined;
    this.i += m[0].length;
    return Number(m[0]);
  }

  /** Go's %!(EXTRA type=value, ...) for arguments no directive used. */
  private extra(): string {
    if (this.reordered || this.argNum >= this.args.length) return '';
    return (
      '%!(EXTRA ' +
      this.args
        .slice(this.argNum)
        .map((a) => TYPE_NAME[a.kind] + '=' + printArg(a, 'v', newFlags()))
        .join(', ') +
      ')'
    );
  }
}

function badVerb(a: Arg, verb: string): string {
  if (a.kind === 'big') return `%!${verb}(big.Int=${a.v})`;
  return `%!${verb}(${TYPE_NAME[a.kind]}=${printArg(a, 'v', newFlags())})`;
}

function printArg(a: Arg, verb: string, f: Flags): string {
  if (verb === 'T') return pad(TYPE_NAME[a.kind], f);
  switch (a.kind) {
    case 'int':
      return fmtInt(a, verb, f);
    case 'big':
      return fmtBig(a, verb, f);
    case 'float':
      return fmtFloatVerb(a, verb, f);
    case 'string':
      return fmtString(a, verb, f);
  }
}

const BASES: Record<string, number> = { v: 10, d: 10, b: 2, o: 8, O: 8, x: 16, X: 16 };

function fmtInt(a: Arg & { v: bigint }, verb: string, f: Flags): string {
  const base = BASES[verb];
  if (base === undefined) {
    if (verb === 'c') return pad(runeOf(a.v), f);
    if (verb === 'q') return pad(quoteRune(a.v), f);
    if (verb === 'U') {
      let s = 'U+' + (a.v < 0n ? (a.v + 2n ** 64n).toString(16) : a.v.toString(16)).toUpperCase().padStart(f.prec ?? 4, '0');
      if (f.sharp && a.v >= 0n && a.v <= 0x10ffffn) s += " '" + runeOf(a.v) + "'";
      return pad(s, f);
    }
    return badVerb(a, verb);
  }
  const negative = a.v < 0n;
  const u = negative ? -a.v : a.v;
  if (f.prec === 0 && u === 0n) return pad('', { ...f, zero: false });
  let digits = u.toString(base);
  if (verb === 'X') digits = digits.toUpperCase();
  let prec = f.prec ?? 0;
  if (f.prec === undefined && f.zero && !f.minus && f.wid !== undefined) {
    prec = f.wid;
    if (negative || f.plus || f.space) prec--;
  }
  if (digits.length < prec) digits = '0'.repeat(prec - digits.length) + digits;
  let prefix = '';
  if (f.sharp) {
    if (base === 2) prefix = '0b';
    else if (base === 8 && digits[0] !== '0') prefix = '0';
    else if (base === 16) prefix = verb === 'X' ? '0X' : '0x';
  }
  if (verb === 'O') prefix = '0o';
  const sign = negative ? '-' : f.plus ? '+' : f.space ? ' ' : '';
  return pad(sign + prefix + digits, { ...f, zero: false });
}

function fmtBig(a: Arg & { v: bigint }, verb: string, f: Flags): string {
  const base = verb === 's' ? 10 : BASES[verb];
  if (base === undefined) return badVerb(a, verb);
  const sign = a.v < 0n ? '-' : f.plus ? '+' : f.space ? ' ' : '';
  let prefix = '';
  if (f.sharp) prefix = ({ b: '0b', o: '0', x: '0x', X: '0X' } as Record<string, string>)[verb] ?? '';
  if (verb === 'O') prefix = '0o';
  let digits = (a.v < 0n ? -a.v : a.v).toString(base);
  if (verb === 'X') digits = digits.toUpperCase();
  let zeros = 0;
  if (f.prec !== undefined) {
    if (digits.length < f.prec) zeros = f.prec - digits.length;
    else if (digits === '0' && f.prec === 0) return '';
  }
  const length = sign.length + prefix.length + zeros + digits.length;
  let left = 0;
  let right = 0;
  if (f.wid !== undefined && length < f.wid) {
    const d = f.wid - length;
    if (f.minus) right = d;
    else if (f.zero && f.prec === undefined) zeros = d;
    else left = d;
  }
  return ' '.repeat(left) + sign + prefix + '0'.repeat(zeros) + digits + ' '.repeat(right);
}

function runeOf(v: bigint): string {
  return v >= 0n && v <= 0x10ffffn && !(v >= 0xd800n && v <= 0xdfffn) ? String.fromCodePoint(Number(v)) : '\ufffd';
}

// ---- strings -------------------------------------------------------------------------

function fmtString(a: Arg & { v: string }, verb: string, f: Flags): string {
  let s = a.v;
  if (f.prec !== undefined) {
    const rs = runes(s);
    if (rs.length > f.prec) s = rs.slice(0, f.prec).join('');
  }
  switch (verb) {
    case 'v':
      return pad(f.sharpV ? goQuote(s, false) : s, f);
    case 's':
      return pad(s, f);
    case 'q':
      return pad(f.sharp && canBackquote(s) ? '`' + s + '`' : goQuote(s, f.plus), f);
    case 'x':
    case 'X': {
      const bytes = [...Buffer.from(s, 'utf8')];
      const hex = (b: number): string => {
        const h = b.toString(16).padStart(2, '0');
        return verb === 'X' ? h.toUpperCase() : h;
      };
      const px = verb === 'X' ? '0X' : '0x';
      let out: string;
      if (f.space) out = bytes.map((b) => (f.sharp ? px : '') + hex(b)).join(' ');
      else out = (f.sharp && bytes.length ? px : '') + bytes.map(hex).join('');
      return pad(out, f);
    }
    default:
      return badVerb(a, verb);
  }
}

function canBackquote(s: string): boolean {
  for (const r of s) {
    const c = r.codePointAt(0)!;
    if (r === '`' || r === '\ufeff' || (c < 0x20 && c !== 0x09) || c === 0x7f) return false;
  }
  return true;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function escapeRune(r: string, quote: string, asciiOnly: boolean): string {
  const c = r.codePointAt(0)!;
  if (r === quote || r === '\\') return '\\' + r;
  if (asciiOnly ? c < 0x7f && c >= 0x20 : PRINTABLE.test(r)) return r;
  switch (r) {
    case '\x07':
      return '\\a';
    case '\b':
      return '\\b';
    case '\f':
      return '\\f';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    case '\v':
      return '\\v';
  }
  if (c < 0x20 || c === 0x7f) return '\\x' + c.toString(16).padStart(2, '0');
  if (c >= 0xd800 && c <= 0xdfff) return '\\ufffd';
  if (c < 0x10000) return '\\u' + c.toString(16).padStart(4, '0');
  return '\\U' + c.toString(16).padStart(8, '0');
}

/** strconv.Quote (or QuoteToASCII). */
export function goQuote(s: string, asciiOnly: boolean): string {
  let out = '"';
  for (const r of s) out += escapeRune(r, '"', asciiOnly);
  return out + '"';
}

function quoteRune(v: bigint): string {
  return "'" + escapeRune(runeOf(v), "'", false) + "'";
}

// ---- floats --------------------------------------------------------------------------

/** Exact decimal digits of a finite double: value = 0.digits * 10^dp. */
interface Digits {
  d: string;
  dp: number;
}

function exactDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e = bexp - 1075;
  if (bexp === 0) e = -1074;
  else mant |= 1n << 52n;
  let text: string;
  let dexp: number;
  if (e >= 0) {
    text = (mant << BigInt(e)).toString();
    dexp = 0;
  } else {
    text = (mant * 5n ** BigInt(-e)).toString();
    dexp = e;
  }
  const trimmed = text.replace(/0+$/, '');
  return { d: trimmed, dp: text.length + dexp };
}

/** Shortest digits that round-trip (what Go's strconv uses for precision -1). */
function shortestDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(x.toExponential())!;
  const d = (m[1]! + (m[2] ?? '')).replace(/0+$/, '');
  return { d, dp: Number(m[3]) + 1 };
}

/** Rounds to nd significant digits, half to even (the digits are exact). */
function roundDigits(g: Digits, nd: number): Digits {
  if (nd < 0 || g.d.length <= nd) return g;
  const next = g.d.charCodeAt(nd) - 48;
  let up = next > 5;
  if (next === 5) {
    const rest = g.d.slice(nd + 1);
    up = /[1-9]/.test(rest) || (nd > 0 && (g.d.charCodeAt(nd - 1) - 48) % 2 === 1);
  }
  let d = g.d.slice(0, nd);
  let dp = g.dp;
  if (up) {
    let k = d.length - 1;
    while (k >= 0 && d[k] === '9') k--;
    if (k < 0) {
      d = '1';
      dp++;
    } else d = d.slice(0, k) + String.fromCharCode(d.charCodeAt(k) + 1);
  }
  return { d: d.replace(/0+$/, ''), dp: d === '' ? 0 : dp };
}

function digitAt(g: Digits, i: number): string {
  return i >= 0 && i < g.d.length ? g.d[i]! : '0';
}

function fmtE(g: Digits, prec: number, e: string): string {
  let s = g.d.length ? g.d[0]! : '0';
  if (prec > 0) {
    s += '.';
    for (let i = 1; i <= prec; i++) s += digitAt(g, i);
  }
  const exp = g.d.length ? g.dp - 1 : 0;
  const ax = Math.abs(exp);
  return s + e + (exp < 0 ? '-' : '+') + (ax < 10 ? '0' : '') + ax;
}

function fmtF(g: Digits, prec: number): string {
  let s = '';
  if (g.dp > 0) for (let i = 0; i < g.dp; i++) s += digitAt(g, i);
  else s = '0';
  if (prec > 0) {
    s += '.';
    for (let i = 0; i < prec; i++) s += digitAt(g, g.dp + i);
  }
  return s;
}

/** strconv.FormatFloat(x, fmt, prec, 64) for e, E, f, F, g, G (x finite, non-negative). */
export function formatFloat(x: number, fmt: string, prec: number): string {
  const shortest = prec < 0;
  let g: Digits;
  if (shortest) {
    g = shortestDigits(x);
    if (fmt === 'e' || fmt === 'E') prec = Math.max(g.d.length - 1, 0);
    else if (fmt === 'f' || fmt === 'F') prec = Math.max(g.d.length - g.dp, 0);
    else prec = g.d.length;
  } else {
    const exact = exactDigits(x);
    if (fmt === 'e' || fmt === 'E') g = roundDigits(exact, prec + 1);
    else if (fmt === 'f' || fmt === 'F') g = roundFixed(exact, prec);
    else {
      if (prec === 0) prec = 1;
      g = roundDigits(exact, prec);
    }
  }
  switch (fmt) {
    case 'e':
    case 'E':
      return fmtE(g, prec, fmt);
    case 'f':
    case 'F':
      return fmtF(g, prec);
  }
  let eprec = prec;
  if (eprec > g.d.length && g.d.length >= g.dp) eprec = g.d.length;
  if (shortest) eprec = 6;
  const exp = g.dp - 1;
  if (g.d.length && (exp < -4 || exp >= eprec)) {
    if (prec > g.d.length) prec = g.d.length;
    return fmtE(g, prec - 1, fmt === 'G' ? 'E' : 'e');
  }
  if (prec > g.dp) prec = g.d.length;
  return fmtF(g, Math.max(prec - g.dp, 0));
}

function roundFixed(exact: Digits, prec: number): Digits {
  const nd = exact.dp + prec;
  if (nd < 0) return { d: '', dp: 0 };
  if (nd === 0) {
    // Only the rounding of the first digit decides between 0 and 1 unit.
    const first = exact.d.charCodeAt(0) - 48;
    const up = first > 5 || (first === 5 && /[1-9]/.test(exact.d.slice(1)));
    return up ? { d: '1', dp: exact.dp + 1 } : { d: '', dp: 0 };
  }
  return roundDigits(exact, nd);
}

function fmtFloatVerb(a: Arg & { v: number }, verb: string, f: Flags): string {
  let fmt: string;
  let prec: number;
  switch (verb) {
    case 'v':
      fmt = 'g';
      prec = -1;
      break;
    case 'g':
    case 'G':
      fmt = verb;
      prec = f.prec ?? -1;
      break;
    case 'e':
    case 'E':
    case 'f':
    case 'F':
      fmt = verb;
      prec = f.prec ?? 6;
      break;
    case 'b':
    case 'x':
    case 'X':
      return pad(binaryFloat(a.v, verb), f);
    default:
      return badVerb(a, verb);
  }
  const neg = a.v < 0 || Object.is(a.v, -0);
  let num = formatFloat(Math.abs(a.v), fmt, prec);
  if (f.sharp) num = sharpFloat(num, fmt, prec);
  let sign = neg ? '-' : '+';
  if (f.space && sign === '+' && !f.plus) sign = ' ';
  if (f.plus || sign !== '+') {
    const full = sign + num;
    if (f.zero && !f.minus && f.wid !== undefined && f.wid > full.length) return sign + '0'.repeat(f.wid - full.length) + num;
    return pad(full, f);
  }
  return pad(num, f);
}

/** The # flag: always print a decimal point; %g keeps trailing zeros. */
function sharpFloat(num: string, fmt: string, prec: number): string {
  const ePos = num.search(/[eE]/);
  let mant = ePos >= 0 ? num.slice(0, ePos) : num;
  const tail = ePos >= 0 ? num.slice(ePos) : '';
  if (!mant.includes('.')) mant += '.';
  if (fmt === 'g' || fmt === 'G') {
    const want = prec < 0 ? 6 : prec === 0 ? 1 : prec;
    const digits = mant.replace('.', '').replace(/^0+/, '').length || 1;
    if (digits < want) mant += '0'.repeat(want - digits);
  }
  return mant + tail;
}

/** %b (decimal mantissa, binary exponent) and %x/%X (hex mantissa) of a float64. */
function binaryFloat(x: number, verb: string): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const neg = hi >>> 31 ? '-' : '';
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp = bexp - 1075;
  if (bexp === 0) exp = -1074;
  else mant |= 1n << 52n;
  if (verb === 'b') return `${neg}${mant}p${exp >= 0 ? '+' : ''}${exp}`;
  if (mant === 0n) return neg + (verb === 'X' ? '0X0P+00' : '0x0p+00');
  // Normalise to 1.xxx * 2^e.
  while (mant < 1n << 52n) {
    mant <<= 1n;
    exp--;
  }
  exp += 52;
  let frac = (mant & ((1n << 52n) - 1n)).toString(16).padStart(13, '0').replace(/0+$/, '');
  const ax = Math.abs(exp);
  let s = `${neg}0x1${frac ? '.' + frac : ''}p${exp < 0 ? '-' : '+'}${ax < 10 ? '0' : ''}${ax}`;
  if (verb === 'X') s = s.toUpperCase();
  frac = '';
  return s;
}
