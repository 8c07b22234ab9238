// Custom built-ins through the library API (OPA's rego.Function1..4): declared types checked
// at compile time, sync and async implementations, OPA's error behaviour (undefined, or
// eval_builtin_error under strict built-in errors, HaltError always), the nd_builtin_cache,
// capabilities, and isolation between instances.

import { describe, expect, it } from 'vitest';
import {
  CustomBuiltinError,
  HaltError,
  IOPending,
  ndBuiltinCacheValue,
  Regolith,
  RegoCompileError,
  RegoEvalError,
  RSet,
  PartialError,
  type CustomBuiltin,
  type Value,
} from '../../src/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';

const upper: CustomBuiltin = { name: 'custom.upper', args: ['string'], result: 'string', fn: ([s]) => (s as string).toUpperCase() };

function value(r: Regolith, query: string, input?: unknown): unknown {
  return r.prepare(query).evaluate({ input })[0]?.expressions[0]?.value;
}

describe('custom built-ins: declaration and calls', () => {
  it('calls a dotted custom built-in from a module and a query', () => {
    const r = new Regolith({ builtins: [upper] });
    r.addModule('p.rego', 'package p\n\nshout := custom.upper(input.name)\n');
    expect(value(r, 'data.p.shout', { name: 'ada' })).toBe('ADA');
    expect(value(r, 'custom.upper("x")')).toBe('X');
    // with an output argument, as any built-in
    expect(r.prepare('custom.upper("b", y)').evaluate()[0]?.bindings).toEqual({ y: 'B' });
  });

  it('takes several arguments, sets in and out (JS Set/Map/bigint converted)', () => {
    const r = new Regolith({
      builtins: [
        { name: 'cidr_hosts', args: ['string', 'number'], result: 'set[string]', fn: ([p, n]) => new Set(Array.from({ length: n as number }, (_, i) => `${p as string}.${i}`)) },
        { name: 'custom.size', args: ['set[any]'], result: 'number', fn: ([s]) => (s as RSet).size },
        { name: 'custom.big', result: 'number', fn: () => 2n ** 70n },
        { name: 'custom.pairs', result: 'object[number: string]', fn: () => new Map([[1, 'a']]) },
      ],
    });
    expect(value(r, 'cidr_hosts("10.0", 2)')).toEqual(['10.0.0', '10.0.1']);
    expect(value(r, 'custom.size({1, 2, 3})')).toBe(3);
    expect(value(r, 'custom.big() == 1180591620717411303424')).toBe(true);
    expect(value(r, 'custom.pairs()[1]')).toBe('a');
  });

  it('is undefined when the implementation returns undefined', () => {
    const r = new Regolith({ builtins: [{ name: 'custom.nothing', fn: () => undefined }] });
    r.addModule('p.rego', 'package p\n\ndefault x := "fallback"\n\nx := custom.nothing()\n');
    expect(value(r, 'data.p.x')).toBe('fallback');
  });

  it('type-checks calls at compile time against the declared types', () => {
    const r = new Regolith({ builtins: [upper] });
    r.addModule('p.rego', 'package p\n\nx := custom.upper(1)\n');
    let err: unknown;
    try {
      r.compile();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RegoCompileError);
    const detail = (err as RegoCompileError).errors[0]!;
    expect(detail.code).toBe('rego_type_error');
    expect(detail).toMatchObject({ message: 'custom.upper: invalid argument(s)', details: { have: ['number'], want: '(string)' } });
  });

  it('checks the arity, and a call to an undeclared name stays an undefined function', () => {
    const r = new Regolith({ builtins: [upper] });
    r.addModule('p.rego', 'package p\n\nx := custom.upper("a", "b", "c")\n');
    expect(() => r.compile()).toThrow(/custom.upper: arity mismatch/);
    const plain = new Regolith();
    plain.addModule('p.rego', 'package p\n\nx := custom.upper("a")\n');
    expect(() => plain.compile()).toThrow(/undefined function custom.upper/);
  });

  it('accepts types as capabilities JSON objects, any, and the bracket forms', () => {
    const r = new Regolith({
      builtins: [
        { name: 'a.b', args: [{ type: 'array', dynamic: { type: 'string' } }, 'any', 'object<name: string>', 'any<string, null>'], result: 'boolean', fn: () => true },
      ],
    });
    expect(value(r, 'a.b(["x"], 1, {"name": "n"}, null)')).toBe(true);
    r.addModule('p.rego', 'package p\n\nx := a.b([1], 1, {"name": "n"}, null)\n');
    expect(() => r.compile()).toThrow(/a.b: invalid argument\(s\)\n\thave: \(array<number>, number, object<name: string>, null\)\n\twant: \(array\[string\], any, object<name: string>, any<string, null>\)/);
  });

  it('refuses bad definitions with clear errors', () => {
    expect(() => new Regolith({ builtins: [{ name: 'count', fn: () => 1 }] })).toThrow(
      'custom built-in "count": a built-in function of that name exists (custom built-ins cannot replace built-in functions)',
    );
    expect(() => new Regolith({ builtins: [{ name: 'bad-name', fn: () => 1 }] })).toThrow(CustomBuiltinError);
    expect(() => new Regolith({ builtins: [{ name: 'data.x', fn: () => 1 }] })).toThrow(/refers to a document/);
    expect(() => new Regolith({ builtins: [upper, upper] })).toThrow('custom built-in "custom.upper" is defined twice');
    expect(() => new Regolith({ builtins: [{ name: 'x.y', args: ['strng'], fn: () => 1 }] })).toThrow(/argument 1: type "strng": unknown type "strng"/);
    expect(() => new Regolith({ builtins: [{ name: 'x.y', result: { type: 'list' } as never, fn: () => 1 }] })).toThrow(/result: type: .* is not a type/);
    expect(() => new Regolith({ builtins: [{ name: 'x.y' } as CustomBuiltin] })).toThrow('custom built-in "x.y": fn must be a function');
  });

  it('addBuiltin recompiles: a module calling it compiles once it is added', () => {
    const r = new Regolith();
    r.addModule('p.rego', 'package p\n\nx := custom.upper("a")\n');
    expect(() => r.compile()).toThrow(/undefined function/);
    r.addBuiltin(upper);
    expect(value(r, 'data.p.x')).toBe('A');
  });

  it('can be replaced by `with` as any built-in', () => {
    const r = new Regolith({ builtins: [upper] });
    r.addModule('p.rego', 'package p\n\nx := custom.upper("a")\n');
    expect(value(r, 'data.p.x with custom.upper as "mocked"')).toBe('mocked');
  });

  it('passes the call site and the query time to the implementation', () => {
    const seen: unknown[] = [];
    const r = new Regolith({
      builtins: [{ name: 'custom.where', fn: (_a, ctx) => (seen.push(ctx.name, ctx.location?.row, ctx.now()), true) }],
    });
    r.addModule('p.rego', 'package p\n\nx if {\n  custom.where()\n}\n');
    r.prepare('data.p.x').evaluate({ now: 42n });
    expect(seen).toEqual(['custom.where', 4, 42n]);
  });

  it('refuses results that are not Rego values', () => {
    const r = new Regolith({ builtins: [{ name: 'custom.bad', fn: () => ({ when: new Date(0) }) }] });
    expect(() => r.prepare('x := custom.bad()').evaluate({ strictBuiltinErrors: true })).toThrow(
      'eval_builtin_error: custom.bad: result.when is a Date, which is not a Rego value',
    );
  });
});

describe('custom built-ins: errors as OPA handles them', () => {
  const failing: CustomBuiltin = {
    name: 'custom.fail',
    args: ['string'],
    fn: ([s]) => {
      throw new Error(`cannot parse ${s as string}`);
    },
  };

  it('makes the call undefined by default', () => {
    const r = new Regolith({ builtins: [failing] });
    r.addModule('p.rego', 'package p\n\ndefault ok := false\n\nok if custom.fail("x")\n');
    expect(value(r, 'data.p.ok')).toBe(false);
  });

  it('ends the evaluation with eval_builtin_error under strict built-in errors', () => {
    const r = new Regolith({ builtins: [failing], strictBuiltinErrors: true });
    r.addModule('p.rego', 'package p\n\nok if custom.fail("x")\n');
    let err: unknown;
    try {
      r.prepare('data.p.ok').evaluate();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RegoEvalError);
    expect((err as RegoEvalError).toJSON()).toEqual({
      code: 'eval_builtin_error',
      message: 'custom.fail: cannot parse x',
      location: { file: 'p.rego', row: 3, col: 7 },
    });
  });

  it("collects the errors of calls made undefined when asked (OPA's BuiltinErrorList), once each across async re-runs", async () => {
    const r = new Regolith({ builtins: [failing, { name: 'custom.wait', fn: async () => 'w' }] });
    r.addModule('p.rego', 'package p\n\ndefault ok := false\n\nok if custom.fail("x")\n\nn := to_number("y")\n\nw := custom.wait()\n');
    const errors: RegoEvalError[] = [];
    const out = await r.prepare('[data.p.ok, data.p.w]').evaluateAsync({ builtinErrors: errors });
    expect(out[0]?.expressions[0]?.value).toEqual([false, 'w']);
    expect(errors.map((e) => e.toJSON())).toEqual([{ code: 'eval_builtin_error', message: 'custom.fail: cannot parse x', location: { file: 'p.rego', row: 5, col: 7 } }]);
    const both: RegoEvalError[] = [];
    r.prepare('[data.p.ok, data.p.n]').evaluate({ builtinErrors: both });
    expect(both.map((e) => e.toJSON().message)).toEqual(['custom.fail: cannot parse x', 'to_number: strconv.ParseFloat: parsing "y": invalid syntax']);
  });

  it('a HaltError ends the evaluation even without strict built-in errors', () => {
    const r = new Regolith({
      builtins: [
        {
          name: 'custom.halt',
          fn: () => {
            throw new HaltError('stop here');
          },
        },
      ],
    });
    expect(() => r.prepare('custom.halt()').evaluate()).toThrow('eval_builtin_error: custom.halt: stop here');
  });
});

describe('custom built-ins: asynchronous implementations', () => {
  const lookup: CustomBuiltin = {
    name: 'custom.lookup',
    args: ['string'],
    result: 'object',
    fn: async ([k]) => {
      await new Promise((r) => setTimeout(r, 5));
      return { key: k, found: k !== 'missing' };
    },
  };

  it('evaluates with evaluateAsync, the event loop free meanwhile', async () => {
    const r = new Regolith({ builtins: [lookup] });
    r.addModule('p.rego', 'package p\n\nfound := custom.lookup(input.k).found\n');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const out = await r.prepare('data.p.found').evaluateAsync({ input: { k: 'a' } });
    clearInterval(timer);
    expect(out[0]?.expressions[0]?.value).toBe(true);
    expect(ticks).toBeGreaterThan(0);
  });

  it('calls the implementation once per query and arguments (the re-runs reuse the answer)', async () => {
    let calls = 0;
    const r = new Regolith({
      builtins: [
        {
          name: 'custom.count_calls',
          args: ['string'],
          fn: ([s]) => {
            calls++;
            return Promise.resolve(s);
          },
        },
      ],
    });
    const out = await r.prepare('a := custom.count_calls("x"); b := custom.count_calls("y"); c := custom.count_calls("x")').evaluateAsync();
    expect(out[0]?.bindings).toEqual({ a: 'x', b: 'y', c: 'x' });
    expect(calls).toBe(2);
  });

  it('a rejected promise is undefined, or eval_builtin_error under strict built-in errors; a resolved undefined is undefined', async () => {
    const r = new Regolith({
      builtins: [
        { name: 'custom.reject', fn: async () => Promise.reject(new Error('backend down')) },
        { name: 'custom.none', fn: async () => undefined },
      ],
    });
    expect(await r.prepare('custom.reject()').evaluateAsync()).toEqual([]);
    expect(await r.prepare('custom.none()').evaluateAsync()).toEqual([]);
    await expect(r.prepare('custom.reject()').evaluateAsync({ strictBuiltinErrors: true })).rejects.toThrow('eval_builtin_error: custom.reject: backend down');
  });

  it('the synchronous entry point names the asynchronous built-in', () => {
    const r = new Regolith({ builtins: [lookup] });
    let err: unknown;
    try {
      r.prepare('custom.lookup("a")').evaluate();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IOPending);
    expect((err as Error).message).toBe('custom.lookup is asynchronous (its implementation returns a promise): use evaluateAsync');
  });

  it('partial evaluation refuses an asynchronous built-in it would have to call', () => {
    const r = new Regolith({ builtins: [lookup] });
    r.addModule('p.rego', 'package p\n\nallow if {\n  custom.lookup("a").found\n  input.x == 1\n}\n');
    expect(() => r.prepare('data.p.allow').partial()).toThrow(PartialError);
    expect(() => r.prepare('data.p.allow').partial()).toThrow('custom.lookup: asynchronous built-ins cannot be evaluated during partial evaluation');
  });

  it('the store engine (server) waits on it too', async () => {
    const engine = new RegolithEngine({ builtins: [lookup] });
    await engine.putPolicy('p.rego', 'package p\n\nfound := custom.lookup(input.k).found\n');
    const res = await engine.evaluate(['p', 'found'], { input: { k: 'missing' } as Value });
    expect(res.result).toBe(false);
  });
});

describe('custom built-ins: non-deterministic', () => {
  it('answers once per query and is recorded in the nd_builtin_cache', () => {
    let n = 0;
    const r = new Regolith({ builtins: [{ name: 'custom.next', args: ['string'], result: 'number', nondeterministic: true, fn: () => ++n }] });
    const cache = new Map<string, Map<string, Value>>();
    const out = r.prepare('a := custom.next("k"); b := custom.next("k")').evaluate({ ndBuiltinCache: cache });
    expect(out[0]?.bindings).toEqual({ a: 1, b: 1 });
    expect(ndBuiltinCacheValue(cache)).toEqual({ 'custom.next': { '["k"]': 1 } });
  });

  it('a deterministic one is not recorded', () => {
    const r = new Regolith({ builtins: [upper] });
    const cache = new Map<string, Map<string, Value>>();
    r.prepare('custom.upper("a")').evaluate({ ndBuiltinCache: cache });
    expect(ndBuiltinCacheValue(cache)).toBeUndefined();
  });

  it('partial evaluation keeps a non-deterministic call, and evaluates a deterministic one', () => {
    const r = new Regolith({
      builtins: [
        { name: 'custom.now', result: 'number', nondeterministic: true, fn: () => 7 },
        { name: 'custom.seven', result: 'number', fn: () => 7 },
      ],
    });
    r.addModule('p.rego', 'package p\n\nnd if input.x == custom.now()\n\nd if input.x == custom.seven()\n');
    expect(r.prepare('data.p.nd').partial().queriesText.join('\n')).toContain('custom.now(');
    expect(r.prepare('data.p.d').partial().queriesText).toEqual(['input.x == 7']);
  });
});

describe('custom built-ins: per instance', () => {
  it('two instances with the same name keep their own implementations; others have none', () => {
    const a = new Regolith({ builtins: [{ name: 'custom.who', fn: () => 'a' }] });
    const b = new Regolith({ builtins: [{ name: 'custom.who', fn: () => 'b' }] });
    const none = new Regolith();
    expect(value(a, 'custom.who()')).toBe('a');
    expect(value(b, 'custom.who()')).toBe('b');
    expect(() => none.prepare('custom.who()')).toThrow(/undefined function custom.who/);
    expect(value(a, 'custom.who()')).toBe('a');
  });

  it("capabilities list an instance's custom built-ins with their declarations", () => {
    const r = new Regolith({ builtins: [upper, { name: 'custom.now', nondeterministic: true, fn: () => 1 }] });
    const caps = r.capabilitiesBuiltins() as { name: string }[];
    expect(caps.find((c) => c.name === 'custom.upper')).toEqual({
      name: 'custom.upper',
      decl: { type: 'function', args: [{ type: 'string' }], result: { type: 'string' } },
    });
    expect(caps.find((c) => c.name === 'custom.now')).toEqual({
      name: 'custom.now',
      decl: { type: 'function', args: [], result: { type: 'any' } },
      nondeterministic: true,
    });
    expect(caps.some((c) => c.name === 'count')).toBe(true);
    expect((new Regolith().capabilitiesBuiltins() as { name: string }[]).some((c) => c.name === 'custom.upper')).toBe(false);
  });
});
