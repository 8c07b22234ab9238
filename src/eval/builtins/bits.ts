// Bitwise operations on integers of any size (two's complement semantics, as Go's big.Int).

import type { Value } from '../../value/index.js';
import { intToNumber } from './arithmetic/bigfloat.js';
import { intOperand } from './arithmetic/index.js';
import { BuiltinError, builtinError } from './errors.js';
import { registerBuiltins } from './registry.js';

function int(v: Value, pos: number): bigint {
  // BigIntOperand: a non-number is reported as "must be integer".
  return intOperand(v, pos, 'integer');
}

function shiftAmount(v: Value): bigint {
  const n = int(v, 2);
  if (n < 0n)
    throw new BuiltinError('operand 2 must be an unsigned integer number but got a negative integer', 'eval_type_error');
  return n;
}

// Beyond this a left shift cannot be held in memory; bigint would throw a RangeError.
const MAX_LSH = 1n << 24n;

registerBuiltins([
  { name: 'bits.and', fn: (a) => intToNumber(int(a[0]!, 1) & int(a[1]!, 2)) },
  { name: 'bits.or', fn: (a) => intToNumber(int(a[0]!, 1) | int(a[1]!, 2)) },
  { name: 'bits.xor', fn: (a) => intToNumber(int(a[0]!, 1) ^ int(a[1]!, 2)) },
  { name: 'bits.negate', fn: (a) => intToNumber(~int(a[0]!, 1)) },
  {
    name: 'bits.lsh',
    fn: (a) => {
      const x = int(a[0]!, 1);
      const s = shiftAmount(a[1]!);
      if (x === 0n) return 0;
      if (s > MAX_LSH) throw builtinError('shift amount too large');
      return intToNumber(x << s);
    },
  },
  {
    name: 'bits.rsh',
    fn: (a) => {
      const x = int(a[0]!, 1);
      const s = shiftAmount(a[1]!);
      if (s > MAX_LSH) return x < 0n ? -1 : 0;
      return intToNumber(x >> s);
    },
  },
]);
