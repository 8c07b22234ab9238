// Formatting checks shared by the formatter tests: the expected text, plus the two
// properties every formatting must have (the parsed tree is unchanged, formatting
// the output again changes nothing).

import { expect } from 'vitest';
import { formatModule, parseModule } from '../../../src/lang/index.js';
import { tree } from './tree.js';

export interface Mode {
  /** Syntax of the input (default v1). */
  from?: 'v0' | 'v1';
  /** Syntax of the output (default: same as the input). */
  to?: 'v0' | 'v1';
}

/** Formats `src`, checks tree and stability, and returns the output. */
export function fmt(src: string, mode: Mode = {}): string {
  const from = mode.from ?? 'v1';
  const to = mode.to ?? from;
  const m = parseModule(src, { regoVersion: from });
  const out = formatModule(m, { regoVersion: to });
  const m2 = parseModule(out, { regoVersion: to });
  // Imports made redundant by v1 output (or by `import rego.v1`) may be dropped.
  const drop = from === 'v0' && to === 'v1';
  const dropFuture = to === 'v1' && m.imports.some((i) => i.path.value.map((t) => ('value' in t ? String(t.value) : '')).join('.') === 'rego.v1');
  const opts = { dropV0Imports: drop, dropFutureImports: dropFuture };
  expect(tree(m2, opts)).toEqual(tree(m, opts));
  expect(formatModule(m2, { regoVersion: to })).toBe(out);
  return out;
}

/** Source lines joined with newlines and a final newline (tabs written as \t). */
export function lines(...ls: string[]): string {
  return ls.join('\n') + '\n';
}
