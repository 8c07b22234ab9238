// Loading custom built-ins from JavaScript modules (--builtins, builtins.modules): the
// export shapes accepted, and a clear error for each way a module can be wrong.

import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { BuiltinsLoadError, loadBuiltinModules } from '../../src/runtime/custom-builtins.js';
import { Regolith } from '../../src/index.js';

const DIR = join(import.meta.dirname, 'fixtures/builtins');

describe('loadBuiltinModules', () => {
  it('loads a default export, a named `builtins` export and a CommonJS module', async () => {
    const defs = await loadBuiltinModules(['linter.js', 'named.mjs', 'commonjs.cjs'], DIR);
    expect(defs.map((d) => d.name)).toEqual(['custom.parse_module', 'result.new', 'custom.slow_upper', 'counter.next', 'cjs.double']);
    const r = new Regolith({ builtins: defs });
    r.addModule('p.rego', 'package p\n\nparsed := custom.parse_module("package a.b\\n\\nx := 1")\n\nd := cjs.double(21)\n\nu := custom.slow_upper("a")\n');
    const out = await r.prepare('[data.p.parsed, data.p.d, data.p.u]').evaluateAsync();
    expect(out[0]?.expressions[0]?.value).toEqual([{ package: 'a.b', lines: 3 }, 42, 'A']);
  });

  it('resolves paths against the working directory by default', async () => {
    const rel = join('test/runtime/fixtures/builtins', 'commonjs.cjs');
    const defs = await loadBuiltinModules([rel]);
    expect(defs.map((d) => d.name)).toEqual(['cjs.double']);
  });

  it.each([
    ['missing.js', 'custom built-ins missing.js: no such file'],
    ['wrong-shape.js', 'custom built-ins wrong-shape.js: the module must export an array of built-in definitions'],
    ['bad-type.js', 'custom built-ins bad-type.js: custom built-in "bad.type": argument 1: type "strng": unknown type "strng"'],
    ['conflict.js', 'custom built-ins conflict.js: custom built-in "upper": a built-in function of that name exists'],
    ['syntax-error.js', 'custom built-ins syntax-error.js: '],
  ])('%s: a clear error', async (file, message) => {
    const err = await loadBuiltinModules([file], DIR).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BuiltinsLoadError);
    expect((err as Error).message.startsWith(message)).toBe(true);
  });

  it('a name defined by two modules is an error naming the second module', async () => {
    const err = await loadBuiltinModules(['linter.js', 'linter.js'], DIR).catch((e: unknown) => e);
    expect((err as Error).message).toBe('custom built-ins linter.js: custom built-in "custom.parse_module" is defined twice');
  });
});
