// With distributed_tracing off nothing of OpenTelemetry is loaded: one module imports it,
// and that module is reached only by the dynamic import in src/runtime/tracing/index.ts;
// the bundle keeps the packages external (optional peer dependencies, but for
// @opentelemetry/api: a dependency, which the bundled prom-client requires too).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('OpenTelemetry is loaded only when tracing is on', () => {
  const all = files(SRC).map((p) => ({ path: relative(SRC, p), text: readFileSync(p, 'utf8') }));

  it('is imported by src/runtime/tracing/otel.ts alone', () => {
    const importers = all.filter((f) => /from '@opentelemetry\/|import\('@opentelemetry\//.test(f.text)).map((f) => f.path);
    expect(importers).toEqual(['runtime/tracing/otel.ts']);
  });

  it('otel.ts is reached only through a dynamic import', () => {
    const statics = all.filter((f) => /^import [^(]*from '[^']*tracing\/otel\.js'/m.test(f.text) && !/^import type /m.test(f.text.match(/^import [^(]*from '[^']*tracing\/otel\.js'/m)![0]));
    expect(statics.map((f) => f.path)).toEqual([]);
    const dynamic = all.filter((f) => f.text.includes("import('./otel.js')")).map((f) => f.path);
    expect(dynamic).toEqual(['runtime/tracing/index.ts']);
  });

  it('is kept out of the bundle', () => {
    const tsup = readFileSync(join(SRC, '../tsup.config.ts'), 'utf8');
    expect(tsup).toMatch(/external: \[[^\]]*\/\^@opentelemetry\\\/\//);
  });
});
