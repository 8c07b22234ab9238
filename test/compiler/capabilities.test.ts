// compile({capabilities}): a capabilities file's features and future_keywords decide the
// syntax modules may use, with OPA's parser errors; allow_net reaches the evaluator.

import { describe, expect, it } from 'vitest';
import { parseModule } from '../../src/lang/index.js';
import { compile, RegoCompileError, type CompileOptions } from '../../src/compiler/index.js';
import '../../src/eval/builtins/index.js';

function errorsOf(src: string, regoVersion: 'v0' | 'v1', capabilities: CompileOptions['capabilities']): { code: string; message: string; location?: { row: number } }[] {
  try {
    compile([parseModule(src, { filename: 'a.rego', regoVersion })], { capabilities });
  } catch (e) {
    if (e instanceof RegoCompileError) return e.errors as never;
    throw e;
  }
  return [];
}

describe('capabilities features and future keywords', () => {
  it('a v1 module needs the rego_v1 feature', () => {
    expect(errorsOf('package a\n\np if true\n', 'v1', { features: [] })).toEqual([
      { code: 'rego_parse_error', message: 'illegal capabilities: rego_v1 feature required for parsing v1 Rego' },
    ]);
    expect(errorsOf('package a\n\np if true\n', 'v1', { features: ['rego_v1'] })).toEqual([]);
  });

  it('a v0 module may import only the future keywords the capabilities list (all v0 ones with rego_v1)', () => {
    const src = 'package a\n\nimport future.keywords.in\nimport future.keywords.every\n\np { 1 in [1] }\n';
    expect(errorsOf(src, 'v0', { features: [], futureKeywords: ['in'] })).toMatchObject([
      { code: 'rego_parse_error', message: 'unexpected keyword, must be one of [in]', location: { row: 4 } },
    ]);
    expect(errorsOf(src, 'v0', { features: ['rego_v1'], futureKeywords: [] })).toEqual([]);
    expect(errorsOf(src, 'v0', { features: [], futureKeywords: ['in', 'nope'] })).toMatchObject([{ message: 'illegal capabilities: unknown keyword: nope' }]);
  });

  it('import rego.v1 in a v0 module needs rego_v1_import or rego_v1', () => {
    const src = 'package a\n\nimport rego.v1\n\np if true\n';
    expect(errorsOf(src, 'v0', { features: [], futureKeywords: [] })).toMatchObject([
      { code: 'rego_parse_error', message: 'invalid import, `rego.v1` is not supported by current capabilities', location: { row: 3 } },
    ]);
    expect(errorsOf(src, 'v0', { features: ['rego_v1_import'] })).toEqual([]);
  });
});
