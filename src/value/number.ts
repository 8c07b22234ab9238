// Numbers. Rego numbers are arbitrary precision; most real numbers are doubles, so a
// double is used whenever it holds the exact value (its shortest decimal form equals the
// value), and BigNum (an exact decimal m * 10^e) only when a double would lose digits.

export class BigNum {
  /** Exact value is mant * 10^exp; mant has no trailing zero digits (unless it is 0). */
  readonly mant: bigint;
  readonly exp: number;
  /** How the number is written: the literal it came from, or a canonical form. */
  readonly text: string;

  constructor(mant: bigint, exp: number, text?: string) {
    if (mant === 0n) exp = 0;
    else
      while (mant % 10n === 0n) {
        mant /= 10n;
        exp++;
      }
    this.mant = mant;
    this.exp = exp;
    this.text = text ?? decimalText(mant, exp);
  }

  toString(): string {
    return this.text;
  }

  /** The nearest double (may be ±Infinity or lose digits). */
  toDouble(): number {
    return Number(this.text);
  }

  isInteger(): boolean {
    return this.exp >= 0;
  }
}

export type RNumber = number | BigNum;

/** Decimal form of mant * 10^exp, in the style of Go's strconv 'g' with shortest digits. */
export function decimalText(mant: bigint, exp: number): string {
  const neg = mant < 0n;
  const digits = (neg ? -mant : mant).toString();
  const sign = neg ? '-' : '';
  const pointPos = digits.length + exp; // position of the decimal point from the left
  // Integers print every digit, as Go's big.Int does (bounded so 1e100000 stays short).
  if (exp >= 0 && pointPos <= 1000) return sign + digits + '0'.repeat(exp);
  if (exp < 0 && pointPos > 0) return sign + digits.slice(0, pointPos) + '.' + digits.slice(pointPos);
  if (exp < 0 && pointPos > -6) return sign + '0.' + '0'.repeat(-pointPos) + digits;
  const e = pointPos - 1;
  const m = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
  return sign + m + 'e' + (e >= 0 ? '+' : '-') + Math.abs(e);
}

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The largest exponent a number's text may have (either sign): an exact decimal past it
 * cannot be compared or printed in bounded time. Readers that only skip a number check it too.
 */
export const MAX_EXPONENT = 1e9;

/** Parses a JSON number text exactly. Returns undefined when it is not a number. */
export function parseDecimal(text: string): { mant: bigint; exp: number } | undefined {
  const m = DECIMAL_RE.exec(text);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  const expPart = m[4] ? Number(m[4]) : 0;
  if (!Number.isFinite(expPart) || Math.abs(expPart) > MAX_EXPONENT) return undefined;
  let mant = BigInt(m[2] + frac);
  if (m[1]) mant = -mant;
  return { mant, exp: expPart - frac.length };
}

function normalize(mant: bigint, exp: number): { mant: bigint; exp: number } {
  if (mant === 0n) return { mant, exp: 0 };
  while (mant % 10n === 0n) {
    mant /= 10n;
    exp++;
  }
  return { mant, exp };
}

function decimalOfDouble(n: number): { mant: bigint; exp: number } {
  // String(n) is the shortest decimal that rounds to n, which is the value we treat n as.
  const d = parseDecimal(String(n))!;
  return normalize(d.mant, d.exp);
}

/**
 * Turns exact decimal digits into a Rego number: a double when the double's shortest
 * form is exactly this value, else a BigNum. `text` is kept for printing (literals).
 */
export function makeNumber(mant: bigint, exp: number, text?: string): RNumber {
  if (exp === 0) {
    // An integer (arithmetic results, time.now_ns): a double when the double prints as
    // these very digits, without the decimal round trip below.
    const s = mant.toString();
    const d = Number(s);
    if (String(d) === s) return d;
  }
  const n = normalize(mant, exp);
  const d = Number(decimalText(n.mant, n.exp));
  if (Number.isFinite(d)) {
    if (d === 0 && n.mant === 0n) return 0; // -0 and 0 are one value
    const back = decimalOfDouble(d);
    if (back.mant === n.mant && back.exp === n.exp) return d;
  }
  return new BigNum(n.mant, n.exp, text);
}

/** Parses a number literal (as written in Rego or JSON). Undefined if it is not one. */
export function parseNumber(text: string): RNumber | undefined {
  const d = parseDecimal(text);
  if (!d) return undefined;
  return makeNumber(d.mant, d.exp, text);
}

export function isNumber(v: unknown): v is RNumber {
  return typeof v === 'number' || v instanceof BigNum;
}

/** Exact decimal form of any Rego number. */
export function toDecimal(v: RNumber): { mant: bigint; exp: number } {
  return typeof v === 'number' ? decimalOfDouble(v) : { mant: v.mant, exp: v.exp };
}

/** Compares two Rego numbers exactly: -1, 0 or 1. */
export function compareNumbers(a: RNumber, b: RNumber): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  // Rounding to the nearest double is monotonic (and a double stands for its shortest
  // decimal form, which rounds to it), so different nearest doubles decide the order.
  const da = typeof a === 'number' ? a : a.toDouble();
  const db = typeof b === 'number' ? b : b.toDouble();
  if (da < db) return -1;
  if (da > db) return 1;
  const x = toDecimal(a);
  const y = toDecimal(b);
  const e = Math.min(x.exp, y.exp);
  const xm = x.mant * 10n ** BigInt(x.exp - e);
  const ym = y.mant * 10n ** BigInt(y.exp - e);
  return xm < ym ? -1 : xm > ym ? 1 : 0;
}

/** The text OPA prints for a number. */
export function numberText(v: RNumber): string {
  if (typeof v !== 'number') return v.text;
  // A double keeps JS's shortest form (1e+21 past 21 digits): such a double almost always
  // came from a literal or JSON written in exponent form, which OPA keeps as written.
  // Exact integer results beyond 2^53 are BigNums, and those print every digit.
  return String(v);
}

/** A JS integer when the number is an integer a double holds exactly; else undefined. */
export function toSafeInteger(v: RNumber): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  return undefined;
}

/** The number as a bigint when it is an integer; else undefined. */
export function toBigInt(v: RNumber): bigint | undefined {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) return BigInt(v);
    if (!Number.isInteger(v)) return undefined;
    // A large double stands for its shortest decimal form (1585852421593912000), not
    // its exact binary value (...912064): the same reading compare() uses.
    v = new BigNum(toDecimal(v).mant, toDecimal(v).exp);
  }
  if (v.exp < 0) return undefined;
  return v.mant * 10n ** BigInt(v.exp);
}

/** A Rego number from a bigint. */
export function fromBigInt(b: bigint): RNumber {
  if (b >= -9007199254740991n && b <= 9007199254740991n) return Number(b);
  return makeNumber(b, 0);
}
