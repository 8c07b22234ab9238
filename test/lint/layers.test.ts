// The layer rule itself: an import up the floors is reported, one down is not, and the
// floor table has no cycle (so no two folders can import each other).
import { ESLint } from 'eslint';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JS module without types
import { FLOORS } from '../../lint/layers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: ROOT });

async function problems(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: resolve(ROOT, file) });
  return r!.messages.filter((m) => m.ruleId === 'layers/imports-flow-down').map((m) => m.message);
}

describe('layers/imports-flow-down', () => {
  it('reports an import up the floors', async () => {
    expect(await problems('src/compiler/x.ts', "import { QueryPlan } from '../eval/query.js';\nexport { QueryPlan };\n")).toEqual([
      "src/compiler may not import src/eval ('../eval/query.js'): imports flow down the layers (compiler may use lang, value).",
    ]);
    expect(await problems('src/server/x.ts', "export { parseModule } from '../lang/index.js';\n")).toHaveLength(1);
    expect(await problems('src/cli/x.ts', "export const m = await import('../eval/query.js');\n")).toHaveLength(1);
  });

  it('accepts imports down the floors and within a floor', async () => {
    expect(await problems('src/eval/x.ts', "import { compile } from '../compiler/index.js';\nexport { compile };\n")).toEqual([]);
    expect(await problems('src/server/x.ts', "export { Regolith } from '../engine/index.js';\nexport { parseJSON } from '../value/index.js';\n")).toEqual([]);
    expect(await problems('test/x.test.ts', "export { compile } from '../src/compiler/index.js';\n")).toEqual([]);
  });

  it('has a floor table without cycles', () => {
    const table = FLOORS as Record<string, string[]>;
    const state = new Map<string, 'open' | 'done'>();
    const visit = (f: string, path: string[]): void => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') throw new Error(`cycle: ${[...path, f].join(' -> ')}`);
      state.set(f, 'open');
      for (const g of table[f] ?? []) visit(g, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of Object.keys(table)) expect(() => visit(f, [])).not.toThrow();
  });

  it('has a floor for every folder under src/ and none for a folder that does not exist', () => {
    const folders = readdirSync(resolve(ROOT, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(Object.keys(FLOORS as Record<string, string[]>).filter((f) => f !== '(index)').sort()).toEqual(folders.sort());
  });
});
