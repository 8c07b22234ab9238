// array.concat, array.slice, array.reverse, array.flatten.

import type { Value } from '../../value/index.js';
import { intOperand } from './arithmetic/index.js';
import { operandError } from './errors.js';
import { registerBuiltins } from './registry.js';

function arr(v: Value, pos: number): Value[] {
  if (!Array.isArray(v)) throw operandError(pos, 'array', v);
  return v;
}

function concat(args: Value[]): Value {
  const a = arr(args[0]!, 1);
  const b = arr(args[1]!, 2);
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  return a.concat(b);
}

function slice(args: Value[]): Value {
  const a = arr(args[0]!, 1);
  const startBig = intOperand(args[1]!, 2);
  const stopBig = intOperand(args[2]!, 3);
  // Clamp as OPA does: stop into [0, len], start into [0, stop].
  const len = BigInt(a.length);
  const stop = stopBig < 0n ? 0 : stopBig > len ? a.length : Number(stopBig);
  const start = startBig < 0n ? 0 : startBig > BigInt(stop) ? stop : Number(startBig);
  if (start === 0 && stop === a.length) return a;
  return a.slice(start, stop);
}

function reverse(args: Value[]): Value {
  const a = arr(args[0]!, 1);
  const out = new Array<Value>(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[a.length - 1 - i]!;
  return out;
}

// One level: array elements are spliced in, anything else is kept (so that
// array.flatten([a, b, c]) equals nested array.concat calls, as OPA documents).
function flatten(args: Value[]): Value {
  const a = arr(args[0]!, 1);
  const out: Value[] = [];
  for (const x of a) {
    if (Array.isArray(x)) for (const y of x) out.push(y);
    else out.push(x);
  }
  return out;
}

registerBuiltins([
  { name: 'array.concat', fn: concat },
  { name: 'array.slice', fn: slice },
  { name: 'array.reverse', fn: reverse },
  { name: 'array.flatten', fn: flatten },
]);
