// Binary floating point with a fixed mantissa precision, as Go's math/big.Float computes
// it. OPA does non-integer arithmetic by parsing the decimal operands into big.Float
// (64-bit mantissa, round-half-even), operating at that precision, and printing the
// result with the shortest decimal that rounds back to it (Text('g'/'f', -1)). Matching
// that is what makes `0.1 + 0.2` print `0.3` and `1 / 3` print `0.3333333333333333333`.
//
// A BigFloat is (-1)^neg * mant * 2^exp with mant >= 0 holding at most `prec` bits.

import { isNumber, makeNumber, parseNumber, toDecimal, type RNumber } from '../../../value/index.js';

export interface BigFloat {
  readonly neg: boolean;
  readonly mant: bigint;
  readonly exp: number;
  readonly prec: number;
}

export const DEFAULT_PREC = 64;

export function bitLength(n: bigint): number {
  if (n === 0n) return 0;
  // toString(16) is much cheaper than repeated shifts for large values.
  const hex = n.toString(16);
  const first = parseInt(hex[0]!, 16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(first));
}

/** Rounds mant * 2^exp to `prec` bits, half to even; `sticky` says bits below mant were non-zero. */
export function roundFloat(neg: boolean, mant: bigint, exp: number, prec: number, sticky = false): BigFloat {
  if (mant === 0n) return { neg, mant: 0n, exp: 0, prec };
  const bl = bitLength(mant);
  if (bl <= prec && !sticky) return { neg, mant, exp, prec };
  // Callers with sticky bits always pass more than prec bits, so shift > 0 here.
  const shift = bl - prec;
  if (shift <= 0) return { neg, mant, exp, prec };
  const s = BigInt(shift);
  let q = mant >> s;
  const rem = mant - (q << s);
  const half = 1n << (s - 1n);
  if (rem > half || (rem === half && (sticky || (q & 1n) === 1n))) q += 1n;
  let e = exp + shift;
  if (bitLength(q) > prec) {
    q >>= 1n;
    e += 1;
  }
  return { neg, mant: q, exp: e, prec };
}

export function isZero(x: BigFloat): boolean {
  return x.mant === 0n;
}

export function fromBigInt(n: bigint, prec: number): BigFloat {
  return roundFloat(n < 0n, n < 0n ? -n : n, 0, prec);
}

/** Exact product of two floats, rounded to prec. */
export function mulFloat(x: BigFloat, y: BigFloat, prec: number): BigFloat {
  return roundFloat(x.neg !== y.neg, x.mant * y.mant, x.exp + y.exp, prec);
}

/** Exact sum, rounded to prec. A zero result is +0 (round-to-nearest). */
export function addFloat(x: BigFloat, y: BigFloat, prec: number): BigFloat {
  if (x.mant === 0n) return roundFloat(y.neg, y.mant, y.exp, prec);
  if (y.mant === 0n) return roundFloat(x.neg, x.mant, x.exp, prec);
  const e = Math.min(x.exp, y.exp);
  const a = x.mant << BigInt(x.exp - e);
  const b = y.mant << BigInt(y.exp - e);
  const sa = x.neg ? -a : a;
  const sb = y.neg ? -b : b;
  const s = sa + sb;
  if (s === 0n) return { neg: false, mant: 0n, exp: 0, prec };
  return roundFloat(s < 0n, s < 0n ? -s : s, e, prec);
}

export function negFloat(x: BigFloat): BigFloat {
  return { neg: !x.neg, mant: x.mant, exp: x.exp, prec: x.prec };
}

export function subFloat(x: BigFloat, y: BigFloat, prec: number): BigFloat {
  return addFloat(x, negFloat(y), prec);
}

/** Correctly rounded quotient; y must not be zero. */
export function quoFloat(x: BigFloat, y: BigFloat, prec: number): BigFloat {
  const neg = x.neg !== y.neg;
  if (x.mant === 0n) return { neg, mant: 0n, exp: 0, prec };
  // Scale the dividend so the integer quotient has at least prec + 2 bits.
  const s = Math.max(0, prec + 3 - bitLength(x.mant) + bitLength(y.mant));
  const num = x.mant << BigInt(s);
  const q = num / y.mant;
  const r = num - q * y.mant;
  return roundFloat(neg, q, x.exp - s - y.exp, prec, r !== 0n);
}

const POW5_SMALL: bigint[] = [];
for (let i = 0, p = 1n; i <= 27; i++, p *= 5n) POW5_SMALL.push(p);

/** 5^n the way Go's big.Float.pow5 computes it: exact up to 5^27, then by squaring at 128/192 bits. */
function pow5(n: number): BigFloat {
  const zp = 128;
  if (n <= 27) return roundFloat(false, POW5_SMALL[n]!, 0, zp);
  let z = roundFloat(false, POW5_SMALL[27]!, 0, zp);
  n -= 27;
  let f = roundFloat(false, 5n, 0, zp + 64);
  while (n > 0) {
    if (n & 1) z = mulFloat(z, f, zp);
    f = mulFloat(f, f, zp + 64);
    n = Math.floor(n / 2);
  }
  return z;
}

/** big.Float.SetString on the exact decimal mant * 10^exp10, at `prec` bits. */
export function fromDecimal(mant: bigint, exp10: number, prec = DEFAULT_PREC): BigFloat {
  const neg = mant < 0n;
  const a = neg ? -mant : mant;
  if (a === 0n) return { neg: false, mant: 0n, exp: 0, prec };
  // 10^e = 5^e * 2^e: the power of two goes into the exponent.
  const z: BigFloat = { neg, mant: a, exp: exp10, prec };
  if (exp10 === 0) return roundFloat(neg, a, 0, prec);
  const p = pow5(Math.abs(exp10));
  return exp10 < 0 ? quoFloat(z, p, prec) : mulFloat(z, p, prec);
}

export function fromNumber(n: RNumber, prec = DEFAULT_PREC): BigFloat {
  const d = toDecimal(n);
  return fromDecimal(d.mant, d.exp, prec);
}

/** Whether the value is an integer. */
export function isIntFloat(x: BigFloat): boolean {
  if (x.mant === 0n || x.exp >= 0) return true;
  const s = BigInt(-x.exp);
  return (x.mant & ((1n << s) - 1n)) === 0n;
}

/** Truncates toward zero. */
export function truncFloat(x: BigFloat): bigint {
  const v = x.exp >= 0 ? x.mant << BigInt(x.exp) : x.mant >> BigInt(-x.exp);
  return x.neg ? -v : v;
}

export function cmpFloat(x: BigFloat, y: BigFloat): number {
  const d = subFloat(x, y, Math.max(bitLength(x.mant), bitLength(y.mant)) + Math.abs(x.exp - y.exp) + 2);
  return d.mant === 0n ? 0 : d.neg ? -1 : 1;
}

// --- shortest decimal formatting (Go's big.Float Text with precision -1) ---

interface Decimal {
  digits: string; // no leading or trailing zeros; '' for zero
  dp: number; // value = 0.digits * 10^dp
}

/** Exact decimal digits of m * 2^e (m >= 0). */
function toDecimalDigits(m: bigint, e: number): Decimal {
  if (m === 0n) return { digits: '', dp: 0 };
  let s: string;
  let frac = 0;
  if (e >= 0) s = (m << BigInt(e)).toString();
  else {
    // m / 2^k = m * 5^k / 10^k
    let k = -e;
    while (k > 0 && (m & 1n) === 0n) {
      m >>= 1n;
      k--;
    }
    s = (m * 5n ** BigInt(k)).toString();
    frac = k;
  }
  let n = s.length;
  while (n > 0 && s.charCodeAt(n - 1) === 48) n--;
  return { digits: s.slice(0, n), dp: s.length - frac };
}

function digitAt(d: Decimal, i: number): number {
  return i >= 0 && i < d.digits.length ? d.digits.charCodeAt(i) - 48 : 0;
}

function trimZeros(d: Decimal): void {
  let n = d.digits.length;
  while (n > 0 && d.digits.charCodeAt(n - 1) === 48) n--;
  d.digits = d.digits.slice(0, n);
  if (n === 0) d.dp = 0;
}

function roundUp(d: Decimal, n: number): void {
  if (n < 0 || n >= d.digits.length) return;
  while (n > 0 && d.digits.charCodeAt(n - 1) >= 57) n--;
  if (n === 0) {
    d.digits = '1';
    d.dp++;
    return;
  }
  d.digits = d.digits.slice(0, n - 1) + String.fromCharCode(d.digits.charCodeAt(n - 1) + 1);
}

function roundDown(d: Decimal, n: number): void {
  if (n < 0 || n >= d.digits.length) return;
  d.digits = d.digits.slice(0, n);
  trimZeros(d);
}

function roundNearest(d: Decimal, n: number): void {
  if (n < 0 || n >= d.digits.length) return;
  const c = d.digits.charCodeAt(n);
  let up: boolean;
  if (c === 53 && n + 1 === d.digits.length) up = n > 0 && ((d.digits.charCodeAt(n - 1) - 48) & 1) !== 0;
  else up = c >= 53;
  if (up) roundUp(d, n);
  else roundDown(d, n);
}

/** Shortens d to the fewest digits that still round to x at x.prec (Go's roundShortest). */
function roundShortest(d: Decimal, x: BigFloat): void {
  if (d.digits.length === 0) return;
  // mant with prec+1 bits, so its lsb is half an ulp.
  const bl = bitLength(x.mant);
  const sh = x.prec + 1 - bl;
  const mant = sh >= 0 ? x.mant << BigInt(sh) : x.mant >> BigInt(-sh);
  const exp = x.exp - sh;
  const lower = toDecimalDigits(mant - 1n, exp);
  const upper = toDecimalDigits(mant + 1n, exp);
  const inclusive = (mant & 2n) === 0n;
  // Digits are compared by index, exactly as Go does (no alignment of decimal points).
  const n = d.digits.length;
  for (let i = 0; i < n; i++) {
    const l = digitAt(lower, i);
    const m = d.digits.charCodeAt(i) - 48;
    const u = digitAt(upper, i);
    const okdown = l !== m || (inclusive && i + 1 === lower.digits.length);
    const okup = m !== u && (inclusive || m + 1 < u || i + 1 < upper.digits.length);
    if (okdown && okup) return roundNearest(d, i + 1);
    if (okdown) return roundDown(d, i + 1);
    if (okup) return roundUp(d, i + 1);
  }
}

function fmtE(d: Decimal, prec: number, neg: boolean): string {
  let out = neg ? '-' : '';
  out += d.digits.length > 0 ? d.digits[0] : '0';
  if (prec > 0) {
    out += '.';
    const m = Math.min(d.digits.length, prec + 1);
    out += d.digits.slice(1, m);
    for (let i = Math.max(m, 1); i <= prec; i++) out += '0';
  }
  let exp = d.digits.length > 0 ? d.dp - 1 : 0;
  out += 'e';
  if (exp < 0) {
    out += '-';
    exp = -exp;
  } else out += '+';
  if (exp < 10) out += '0';
  return out + String(exp);
}

function fmtF(d: Decimal, prec: number, neg: boolean): string {
  let out = neg ? '-' : '';
  if (d.dp > 0) {
    const m = Math.min(d.digits.length, d.dp);
    out += d.digits.slice(0, m);
    if (m < d.dp) out += '0'.repeat(d.dp - m);
  } else out += '0';
  if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) out += String(digitAt(d, d.dp + i));
  }
  return out;
}

/** OPA's FloatToNumber text: 'f' for integers, else 'g', both with shortest digits. */
export function floatText(x: BigFloat): string {
  if (x.mant === 0n) return x.neg ? '-0' : '0';
  // Exact digits of 2^±60000 and beyond would take too long to produce; such magnitudes
  // only come from absurd literals, so a double's digits stand in for them.
  if (Math.abs(x.exp) > 60000) return approximateText(x);
  const d = toDecimalDigits(x.mant, x.exp);
  roundShortest(d, x);
  if (isIntFloat(x)) return fmtF(d, Math.max(d.digits.length - d.dp, 0), x.neg);
  const eprec = 6;
  const exp = d.dp - 1;
  if (exp < -4 || exp >= eprec) return fmtE(d, d.digits.length - 1, x.neg);
  return fmtF(d, Math.max(d.digits.length - d.dp, 0), x.neg);
}

/** The Rego number OPA produces from a big.Float result. */
export function floatToNumber(x: BigFloat): RNumber {
  const n = parseNumber(floatText(x));
  if (n === undefined || !isNumber(n)) throw new Error('internal: unparsable float text ' + floatText(x));
  return n;
}

/** An integer result as OPA prints it (big.Int.String(): every digit, never exponent form). */
export function intToNumber(b: bigint): RNumber {
  if (b >= -9007199254740991n && b <= 9007199254740991n) return Number(b);
  // a double when it prints as these very digits (as makeNumber decides), the digits made once
  const s = b.toString();
  const d = Number(s);
  if (String(d) === s) return d;
  return makeNumber(b, 0, s);
}

function approximateText(x: BigFloat): string {
  const bl = bitLength(x.mant);
  const top = Number(x.mant >> BigInt(Math.max(bl - 53, 0)));
  const e2 = x.exp + Math.max(bl - 53, 0);
  // log10 of the value, to print mantissa and decimal exponent without overflowing a double.
  const lg = Math.log10(top) + e2 * Math.LOG10E * Math.LN2;
  const dexp = Math.floor(lg);
  const m = Math.pow(10, lg - dexp);
  return (x.neg ? '-' : '') + String(m) + 'e' + (dexp < 0 ? '-' : '+') + Math.abs(dexp);
}
