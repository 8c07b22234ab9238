// A minimal BuiltinContext for calling built-ins directly in unit tests, and a helper
// that calls one by name the way the evaluator does.

import type { BuiltinContext } from '../../../src/eval/builtins/registry.js';
import { getBuiltin } from '../../../src/eval/builtins/index.js';
import { newPlainObject, type Value } from '../../../src/value/index.js';
import { BuiltinError } from '../../../src/eval/builtins/errors.js';

export class SuspendForTest extends Error {
  constructor(readonly key: string, readonly promise: Promise<Value>) {
    super('suspended on I/O: ' + key);
  }
}

export interface FakeContextOptions {
  nowNs?: bigint;
  strict?: boolean;
  runtime?: Value;
}

export interface FakeContext extends BuiltinContext {
  printed: string[];
  traced: string[];
  io: Map<string, Value>;
}

export function fakeContext(name = 'test', opts: FakeContextOptions = {}): FakeContext {
  const ndCache = new Map<string, Map<string, Value>>();
  const io = new Map<string, Value>();
  const printed: string[] = [];
  const traced: string[] = [];
  const now = opts.nowNs ?? 1_700_000_000_000_000_000n;
  return {
    name,
    now: () => now,
    print: (m) => void printed.push(m),
    trace: (m) => void traced.push(m),
    strict: opts.strict ?? false,
    ndCache,
    awaitIO(key, load) {
      if (io.has(key)) return io.get(key)!;
      throw new SuspendForTest(key, load());
    },
    runtime: () => opts.runtime ?? {},
    metadataChain: () => [],
    metadataRule: () => ({}),
    printed,
    traced,
    io,
  };
}

/** Calls a built-in by name, like the evaluator (synchronously; no I/O). */
export function callBuiltin(name: string, args: Value[], ctx: BuiltinContext = fakeContext(name)): Value | undefined {
  const def = getBuiltin(name);
  if (!def) throw new Error(`no built-in named ${name}`);
  return def.fn(args, { ...ctx, name } as BuiltinContext);
}

/** Calls a built-in that may wait on I/O: re-runs it after each awaited load, as the evaluator does. */
export async function callBuiltinAsync(name: string, args: Value[], ctx: FakeContext = fakeContext(name)): Promise<Value | undefined> {
  for (;;) {
    try {
      return callBuiltin(name, args, ctx);
    } catch (e) {
      if (!(e instanceof SuspendForTest)) throw e;
      ctx.io.set(e.key, await e.promise);
    }
  }
}

/** Calls a built-in with spread arguments (a shorthand for tests). */
export const call = (name: string, ...args: Value[]): Value | undefined => callBuiltin(name, args);

/** Calls a built-in that must fail, returning its BuiltinError. */
export function callError(name: string, ...args: Value[]): BuiltinError {
  try {
    callBuiltin(name, args);
  } catch (e) {
    if (e instanceof BuiltinError) return e;
    throw e;
  }
  throw new Error(`expected ${name} to fail`);
}

/** A plain Rego object from a JS literal (prototype-free, like the evaluator's). */
export const obj = (o: Record<string, Value>): Value => Object.assign(newPlainObject(), o);
