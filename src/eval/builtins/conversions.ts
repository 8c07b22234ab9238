// to_number and the deprecated cast_* built-ins.

import { RSet, isNumber, isObject, makeNumber, parseNumber, type Value } from '../../value/index.js';
import { builtinError, operandError } from './errors.js';
import { registerBuiltins } from './registry.js';

const DEC_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX_RE = /^([+-]?)0[xX]((?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*)|(?:\.[0-9a-fA-F_]+))[pP]([+-]?[0-9_]+)$/;
const MAX_DOUBLE_EXP10 = 309;

/** Go's strconv.ParseFloat(s, 64) error text, or undefined when s parses. */
function parseFloatError(s: string, value: Value | undefined): string | undefined {
  const q = JSON.stringify(s);
  if (value === undefined) return `strconv.ParseFloat: parsing ${q}: invalid syntax`;
  if (typeof value !== 'number') {
    // Too large for a double: ParseFloat reports a range error (underflow to 0 is fine).
    const d = Number(String(value));
    if (!Number.isFinite(d)) return `strconv.ParseFloat: parsing ${q}: value out of range`;
  }
  return undefined;
}

/** The exact number a Go float literal denotes; undefined when it is not valid syntax. */
function parseGoFloat(s: string): Value | undefined {
  if (DEC_RE.test(s)) {
    let t = s[0] === '+' ? s.slice(1) : s;
    t = t.replace(/^(-?)\./, '$10.').replace(/\.(?=[eE]|$)/, '');
    const m = /[eE]([+-]?\d+)$/.exec(t);
    if (m && Math.abs(Number(m[1])) > 1e6) {
      // Huge exponents: the value is 0 or out of range; no need for exact digits.
      const d = Number(t);
      return Number.isFinite(d) ? d + 0 : parseNumber('1e' + MAX_DOUBLE_EXP10);
    }
    return parseNumber(t);
  }
  const h = HEX_RE.exec(s);
  if (!h) return undefined;
  // Underscores are allowed between digits only with a base prefix.
  const body = h[2]!;
  if (/(^_)|(_$)|(__)|(_\.)|(\._)/.test(body) || /(^_)|(_$)|(__)/.test(h[3]!.replace(/^[+-]/, ''))) return undefined;
  const [ip, fp = ''] = body.replace(/_/g, '').split('.');
  const digits = (ip ?? '') + fp;
  if (digits === '') return undefined;
  let mant = BigInt('0x' + digits);
  if (h[1] === '-') mant = -mant;
  const e2 = Number(h[3]!.replace(/_/g, '')) - 4 * fp.length;
  if (!Number.isFinite(e2) || Math.abs(e2) > 1e6) return undefined;
  if (e2 >= 0) return makeNumber(mant << BigInt(e2), 0);
  // m / 2^k = m * 5^k / 10^k
  return makeNumber(mant * 5n ** BigInt(-e2), e2);
}

function toNumber(args: Value[]): Value {
  const a = args[0]!;
  if (a === null) return 0;
  if (typeof a === 'boolean') return a ? 1 : 0;
  if (isNumber(a)) return a;
  if (typeof a === 'string') {
    const low = a.replace(/^[+-]+/, '').toLowerCase();
    if (low === 'inf' || low === 'infinity' || low === 'nan') throw operandError(1, 'valid number string', a);
    const v = parseGoFloat(a);
    const err = parseFloatError(a, v);
    if (err) throw builtinError(err);
    return v!;
  }
  throw operandError(1, 'one of {null, boolean, number, string}', a);
}

function castArray(args: Value[]): Value {
  const a = args[0]!;
  if (Array.isArray(a)) return a;
  if (a instanceof RSet) return a.values().slice();
  throw operandError(1, 'one of {array, set}', a);
}

function castSet(args: Value[]): Value {
  const a = args[0]!;
  if (a instanceof RSet) return a;
  if (Array.isArray(a)) return RSet.from(a);
  throw operandError(1, 'one of {array, set}', a);
}

function same(pred: (v: Value) => boolean, expected: string) {
  return (args: Value[]): Value => {
    const a = args[0]!;
    if (!pred(a)) throw operandError(1, expected, a);
    return a;
  };
}

registerBuiltins([
  {
    name: 'to_number',
    fn: toNumber,
  },
  { name: 'cast_array', fn: castArray, },
  { name: 'cast_set', fn: castSet, },
  { name: 'cast_string', fn: same((v) => typeof v === 'string', 'string'), },
  {
    name: 'cast_boolean',
    fn: same((v) => typeof v === 'boolean', 'boolean'),
  },
  { name: 'cast_null', fn: same((v) => v === null, 'null'), },
  {
    name: 'cast_object',
    fn: same((v) => isObject(v), 'object'),
  },
]);
