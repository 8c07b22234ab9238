// Arithmetic: plus, minus (also set difference), mul, div, rem, abs, round, ceil, floor,
// numbers.range, numbers.range_step, rand.intn.
//
// Exactness follows OPA: integers are exact at any size (bigint), with a fast path for
// safe-integer doubles; anything else goes through a 64-bit-mantissa binary float and
// back through its shortest decimal form (see arithmetic-bigfloat.ts).

import {
  BigNum,
  RSet,
  isNumber,
  toBigInt,
  typeName,
  type RNumber,
  type Value,
} from '../../../value/index.js';
import {
  DEFAULT_PREC,
  addFloat,
  floatToNumber,
  intToNumber,
  fromDecimal,
  fromNumber,
  isIntFloat,
  isZero,
  mulFloat,
  quoFloat,
  subFloat,
  truncFloat,
  type BigFloat,
} from './bigfloat.js';
import { builtinError, operandError, BuiltinError } from '../errors.js';
import { registerBuiltins } from '../registry.js';

function num(v: Value, pos: number): RNumber {
  if (typeof v === 'number' || v instanceof BigNum) return v;
  throw operandError(pos, 'number', v);
}

/** An integer operand (OPA's IntOperand / BigIntOperand messages). */
export function intOperand(v: Value, pos: number, typeWord = 'number'): bigint {
  if (!isNumber(v)) throw operandError(pos, typeWord, v);
  const i = toBigInt(v);
  if (i === undefined)
    throw new BuiltinError(`operand ${pos} must be integer number but got floating-point number`, 'eval_type_error');
  return i;
}

function floatResult(f: BigFloat): RNumber {
  return floatToNumber(f);
}

type FloatOp = (x: BigFloat, y: BigFloat, prec: number) => BigFloat;

function viaFloat(a: RNumber, b: RNumber, op: FloatOp): RNumber {
  return floatResult(op(fromNumber(a), fromNumber(b), DEFAULT_PREC));
}

function plus(args: Value[]): Value {
  const a = num(args[0]!, 1);
  const b = num(args[1]!, 2);
  if (typeof a === 'number' && typeof b === 'number' && Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  const x = toBigInt(a);
  const y = x === undefined ? undefined : toBigInt(b);
  if (x !== undefined && y !== undefined) return intToNumber(x + y);
  return viaFloat(a, b, addFloat);
}

function minus(args: Value[]): Value {
  const a = args[0]!;
  const b = args[1]!;
  const an = isNumber(a);
  const bn = isNumber(b);
  if (an && bn) {
    if (typeof a === 'number' && typeof b === 'number' && Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
      const r = a - b;
      if (Number.isSafeInteger(r)) return r;
    }
    const x = toBigInt(a);
    const y = x === undefined ? undefined : toBigInt(b);
    if (x !== undefined && y !== undefined) return intToNumber(x - y);
    return viaFloat(a, b, subFloat);
  }
  const as = a instanceof RSet;
  const bs = b instanceof RSet;
  if (as && bs) {
    const out = new RSet();
    for (const v of a.values()) if (!b.has(v)) out.add(v);
    return out;
  }
  if (!an && !as) throw new BuiltinError(`operand 1 must be one of {number, set} but got ${typeName(a)}`, 'eval_type_error');
  if (bn) throw operandError(2, 'set', b);
  throw operandError(2, 'number', b);
}

function mul(args: Value[]): Value {
  const a = num(args[0]!, 1);
  const b = num(args[1]!, 2);
  if (typeof a === 'number' && typeof b === 'number' && Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
    const r = a * b;
    if (Number.isSafeInteger(r)) return r + 0; // + 0 turns -0 into 0
  }
  const x = toBigInt(a);
  const y = x === undefined ? undefined : toBigInt(b);
  if (x !== undefined && y !== undefined) return intToNumber(x * y);
  return viaFloat(a, b, mulFloat);
}

function div(args: Value[]): Value {
  const a = num(args[0]!, 1);
  const b = num(args[1]!, 2);
  if (typeof a === 'number' && typeof b === 'number' && Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
    if (b === 0) throw builtinError('divide by zero');
    // An exact integer quotient is what the float path would print too.
    if (a % b === 0) return a / b + 0;
  }
  const y = fromNumber(b);
  if (isZero(y)) throw builtinError('divide by zero');
  return floatResult(quoFloat(fromNumber(a), y, DEFAULT_PREC));
}

function rem(args: Value[]): Value {
  const a = num(args[0]!, 1);
  const b = num(args[1]!, 2);
  if (typeof a === 'number' && typeof b === 'number' && Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
    if (b === 0) throw builtinError('modulo by zero');
    return (a % b) + 0;
  }
  const x = toBigInt(a);
  const y = toBigInt(b);
  if (x === undefined || y === undefined) throw builtinError('modulo on floating-point number');
  if (y === 0n) throw builtinError('modulo by zero');
  return intToNumber(x % y);
}

function abs(args: Value[]): Value {
  const a = num(args[0]!, 1);
  // A double's digits are far coarser than the 64-bit float's, so |a| prints the same.
  if (typeof a === 'number') return Math.abs(a);
  const i = toBigInt(a);
  if (i !== undefined) return intToNumber(i < 0n ? -i : i);
  const f = fromNumber(a);
  return floatResult({ neg: false, mant: f.mant, exp: f.exp, prec: f.prec });
}

const HALF = fromDecimal(5n, -1, 53);

function roundNum(args: Value[]): Value {
  const a = num(args[0]!, 1);
  if (typeof a === 'number' && Number.isInteger(a)) return a;
  if (toBigInt(a) !== undefined) return a;
  // Half away from zero: add or subtract 0.5 at 64 bits, then truncate (as OPA does).
  const f = fromNumber(a);
  const g = f.neg ? subFloat(f, HALF, DEFAULT_PREC) : addFloat(f, HALF, DEFAULT_PREC);
  return intToNumber(truncFloat(g));
}

// OPA's ceil/floor truncate and then adjust by the truncated value's sign; a truncated
// zero counts as positive, so ceil(-0.5) is 1 and floor(-0.5) is 0 there. Kept as is.
function ceilNum(args: Value[]): Value {
  const a = num(args[0]!, 1);
  if (typeof a === 'number' && Number.isInteger(a)) return a;
  if (toBigInt(a) !== undefined) return a;
  const f = fromNumber(a);
  const i = truncFloat(f);
  if (i < 0n || isIntFloat(f)) return intToNumber(i);
  return intToNumber(i + 1n);
}

function floorNum(args: Value[]): Value {
  const a = num(args[0]!, 1);
  if (typeof a === 'number' && Number.isInteger(a)) return a;
  if (toBigInt(a) !== undefined) return a;
  const f = fromNumber(a);
  const i = truncFloat(f);
  if (i >= 0n || isIntFloat(f)) return intToNumber(i);
  return intToNumber(i - 1n);
}

// --- numbers.range / numbers.range_step ---

const MAX_RANGE = 50_000_000;

function rangeArray(x: bigint, y: bigint, step: bigint, name: string): Value {
  const out: Value[] = [];
  const span = x <= y ? y - x : x - y;
  if (span / step >= BigInt(MAX_RANGE)) throw builtinError(`${name}: range too large`);
  if (x >= -9007199254740991n && y <= 9007199254740991n && y >= -9007199254740991n && x <= 9007199254740991n) {
    const s = Number(step);
    const a = Number(x);
    const b = Number(y);
    if (a <= b) for (let i = a; i <= b; i += s) out.push(i);
    else for (let i = a; i >= b; i -= s) out.push(i);
    return out;
  }
  if (x <= y) for (let i = x; i <= y; i += step) out.push(intToNumber(i));
  else for (let i = x; i >= y; i -= step) out.push(intToNumber(i));
  return out;
}

function numbersRange(args: Value[]): Value {
  const x = intOperand(args[0]!, 1, 'integer');
  const y = intOperand(args[1]!, 2, 'integer');
  return rangeArray(x, y, 1n, 'numbers.range');
}

function numbersRangeStep(args: Value[]): Value {
  const x = intOperand(args[0]!, 1, 'integer');
  const y = intOperand(args[1]!, 2, 'integer');
  const step = intOperand(args[2]!, 3, 'integer');
  // OPA's wording.
  if (step <= 0n) throw builtinError('numbers.range_step: step must be a positive number above zero');
  return rangeArray(x, y, step, 'numbers.range_step');
}

// --- rand.intn ---

function randIntn(args: Value[]): Value {
  const s = args[0]!;
  if (typeof s !== 'string') throw operandError(1, 'string', s);
  const n = intOperand(args[1]!, 2);
  if (n === 0n) return 0;
  // One answer per query and arguments: the registry's nd-cache wrapper.
  const bound = n < 0n ? -n : n;
  let r: bigint;
  if (bound <= 9007199254740991n) r = BigInt(Math.floor(Math.random() * Number(bound)));
  else {
    // Uniform enough for huge bounds: 64 random bits per word, reduced.
    let acc = 0n;
    for (let bits = 0; bits < bound.toString(2).length + 64; bits += 32)
      acc = (acc << 32n) | BigInt(Math.floor(Math.random() * 0x100000000));
    r = acc % bound;
  }
  return intToNumber(r);
}

registerBuiltins([
  { name: 'plus', fn: plus },
  { name: 'minus', fn: minus },
  { name: 'mul', fn: mul },
  { name: 'div', fn: div },
  { name: 'rem', fn: rem },
  { name: 'abs', fn: abs },
  { name: 'round', fn: roundNum },
  { name: 'ceil', fn: ceilNum },
  { name: 'floor', fn: floorNum },
  { name: 'numbers.range', fn: numbersRange },
  {
    name: 'numbers.range_step',
    fn: numbersRangeStep,
  },
  {
    name: 'rand.intn',
    fn: randIntn,
    impure: true,
  },
]);
