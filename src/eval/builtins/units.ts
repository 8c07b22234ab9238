// units.parse and units.parse_bytes. OPA's messages name the built-in themselves
// ("units.parse: no amount provided"); the evaluator adds its usual prefix on top.

import { makeNumber, parseDecimal, type Value } from '../../value/index.js';
import { DEFAULT_PREC, intToNumber, fromBigInt as floatFromBigInt, fromDecimal, mulFloat, truncFloat } from './arithmetic/bigfloat.js';
import { builtinError, operandError } from './errors.js';
import { registerBuiltins } from './registry.js';

const MAX_EXPONENT_DIGITS = 6;

class ExponentTooLarge extends Error {}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Splits "10.5KiB" into number text and unit, as OPA's extractNumAndUnit does. */
function splitNumUnit(s: string): [string, string] {
  let first = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (!isDigit(c) && c !== '.' && c !== 'e' && c !== 'E' && c !== '+' && c !== '-') {
      first = i;
      break;
    }
    if (c === 'e' || c === 'E') {
      const next = s[i + 1];
      if (i === s.length - 1 || (!isDigit(next) && next !== '+' && next !== '-')) {
        first = i;
        break;
      }
      if (next === '+' || next === '-') i++;
      let end = i + 1;
      while (end < s.length && isDigit(s[end])) end++;
      if (end - (i + 1) > MAX_EXPONENT_DIGITS) throw new ExponentTooLarge();
    }
  }
  if (first === -1) return [s, ''];
  if (first === 0) return ['', s];
  return [s.slice(0, first), s.slice(first)];
}

/** Go's big.Rat/big.Float SetString for a plain decimal: sign, digits, '.', exponent. */
function parseAmount(t: string): { mant: bigint; exp: number } | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(t);
  if (!m) return undefined;
  const int = m[2]!;
  const frac = m[3] ?? '';
  if (int === '' && frac === '') return undefined;
  const d = parseDecimal((m[1] === '-' ? '-' : '') + (int || '0') + (frac ? '.' + frac : '') + (m[4] ? 'e' + m[4] : ''));
  return d;
}

const KI = 1024n;
const BYTE_UNITS: Record<string, bigint> = {
  '': 1n,
  kb: 1000n,
  k: 1000n,
  kib: KI,
  ki: KI,
  mb: 1000n ** 2n,
  m: 1000n ** 2n,
  mib: KI ** 2n,
  mi: KI ** 2n,
  gb: 1000n ** 3n,
  g: 1000n ** 3n,
  gib: KI ** 3n,
  gi: KI ** 3n,
  tb: 1000n ** 4n,
  t: 1000n ** 4n,
  tib: KI ** 4n,
  ti: KI ** 4n,
  pb: 1000n ** 5n,
  p: 1000n ** 5n,
  pib: KI ** 5n,
  pi: KI ** 5n,
  eb: 1000n ** 6n,
  e: 1000n ** 6n,
  eib: KI ** 6n,
  ei: KI ** 6n,
};

function parseBytes(args: Value[]): Value {
  const raw = args[0]!;
  if (typeof raw !== 'string') throw operandError(1, 'string', raw);
  const s = raw.toLowerCase().replaceAll('"', '');
  const err = (msg: string) => builtinError('units.parse_bytes: ' + msg);
  if (s.includes(' ')) throw err('spaces not allowed in resource strings');
  let num: string;
  let unit: string;
  try {
    [num, unit] = splitNumUnit(s);
  } catch {
    throw err('exponent too large');
  }
  if (num === '') throw err('no byte amount provided');
  const mult = BYTE_UNITS[unit];
  if (mult === undefined) throw err(`byte unit ${unit} not recognized`);
  const d = parseAmount(num);
  if (!d) throw err('could not parse byte amount to a number');
  // big.Float (64-bit) product, truncated to an integer.
  const prod = mulFloat(fromDecimal(d.mant, d.exp), floatFromBigInt(mult, DEFAULT_PREC), DEFAULT_PREC);
  return intToNumber(truncFloat(prod));
}

// units.parse multiplies exactly (big.Rat). "m" is the double 0.001, exactly as stored.
const MILLI = { num: 1152921504606847n, den: 1n << 60n }; // 0.001 as a double: 1152921504606847 / 2^60
const SI_UNITS: Record<string, bigint> = {
  '': 1n,
  k: 1000n,
  K: 1000n,
  ki: KI,
  Ki: KI,
  M: 1000n ** 2n,
  mi: KI ** 2n,
  Mi: KI ** 2n,
  g: 1000n ** 3n,
  G: 1000n ** 3n,
  gi: KI ** 3n,
  Gi: KI ** 3n,
  t: 1000n ** 4n,
  T: 1000n ** 4n,
  ti: KI ** 4n,
  Ti: KI ** 4n,
  p: 1000n ** 5n,
  P: 1000n ** 5n,
  pi: KI ** 5n,
  Pi: KI ** 5n,
  e: 1000n ** 6n,
  E: 1000n ** 6n,
  ei: KI ** 6n,
  Ei: KI ** 6n,
};

/** big.Rat.FloatString(10): ten decimals, the last rounded half away from zero. */
function ratFloatString(num: bigint, den: bigint): string {
  const neg = num < 0n;
  const a = neg ? -num : num;
  const scaled = a * 10n ** 10n;
  let q = scaled / den;
  const r = scaled - q * den;
  if (2n * r >= den) q += 1n;
  const s = q.toString().padStart(11, '0');
  return (neg ? '-' : '') + s.slice(0, -10) + '.' + s.slice(-10);
}

function parseUnits(args: Value[]): Value {
  const raw = args[0]!;
  if (typeof raw !== 'string') throw operandError(1, 'string', raw);
  const s = raw.replaceAll('"', '');
  const err = (msg: string) => builtinError('units.parse: ' + msg);
  if (s.includes(' ')) throw err('spaces not allowed in resource strings');
  let num: string;
  let unit: string;
  try {
    [num, unit] = splitNumUnit(s);
  } catch {
    throw err('exponent too large');
  }
  if (num === '') throw err('no amount provided');
  // Only letters after the first are lowercased, so "m" (milli) and "M" (mega) differ.
  if (unit.length > 1) unit = unit[0] + unit.slice(1).toLowerCase();
  let mulNum: bigint;
  let mulDen = 1n;
  if (unit === 'm') {
    mulNum = MILLI.num;
    mulDen = MILLI.den;
  } else {
    const m = SI_UNITS[unit];
    if (m === undefined) throw err(`unit ${unit} not recognized`);
    mulNum = m;
  }
  const d = parseAmount(num);
  if (!d) throw err('could not parse amount to a number');
  let n = d.mant * mulNum;
  let den = mulDen;
  if (d.exp >= 0) n *= 10n ** BigInt(d.exp);
  else den *= 10n ** BigInt(-d.exp);
  if (n % den === 0n) return intToNumber(n / den);
  const text = ratFloatString(n, den);
  const p = parseDecimal(text)!;
  return makeNumber(p.mant, p.exp);
}

registerBuiltins([
  { name: 'units.parse', fn: parseUnits },
  { name: 'units.parse_bytes', fn: parseBytes },
]);
