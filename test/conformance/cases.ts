// Loader for OPA's YAML conformance cases (the folder test/opa-conformance.ts finds). Shared
// by the parse runner (parse.test.ts) and the evaluation runner: it only reads and types
// the cases, it does not interpret them.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import yaml from 'js-yaml';
import { parseNumber } from '../../src/value/index.js';
import { OPA_CONFORMANCE_DIR } from '../opa-conformance.js';

// YAML integers past 2^53 (e.g. -9223372036854775808 in the time cases) are read
// exactly, as the Go YAML reader OPA's runner uses does; smaller ones stay doubles.
// js-yaml exports its built-in types at runtime, though its typings omit them.
const yamlInt = (yaml as unknown as { types: { int: yaml.Type } }).types.int;
const exactInt = new yaml.Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (data: string) => yamlInt.resolve(data),
  construct: (data: string) => {
    const n = yamlInt.construct(data) as number;
    return Number.isSafeInteger(n) ? n : (parseNumber(data.replace(/_/g, '')) ?? n);
  },
  predicate: (v: object) => yamlInt.predicate!(v),
  represent: yamlInt.represent ?? undefined,
});
const CASE_SCHEMA = yaml.DEFAULT_SCHEMA.extend({ implicit: [exactInt] });

export interface ConformanceCase {
  /** Directory relative to the conformance root, e.g. "v1/every". */
  dir: string;
  /** YAML file path relative to the conformance root. */
  file: string;
  /** Index of the case within its file. */
  index: number;
  note: string;
  regoVersion: 'v0' | 'v1';
  modules: string[];
  data?: unknown;
  input?: unknown;
  /** Input written as a Rego term (may contain sets). */
  input_term?: string;
  query: string;
  want_result?: Record<string, unknown>[];
  want_error_code?: string;
  want_error?: string;
  strict_error?: boolean;
  sort_bindings?: boolean;
  skip?: boolean;
  /** Every other field of the YAML case, untouched. */
  raw: Record<string, unknown>;
}

function walk(dir: string, out: string[]): void {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of entries) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.yaml') || name.endsWith('.yml')) out.push(p);
  }
}

/** Every case under v1/ and v0-legacy/ (whatever is present when called; none without the folder). */
export function loadCases(root: string | undefined = OPA_CONFORMANCE_DIR): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  if (!root) return cases;
  for (const [sub, regoVersion] of [
    ['v1', 'v1'],
    ['v0-legacy', 'v0'],
  ] as const) {
    const files: string[] = [];
    walk(join(root, sub), files);
    for (const path of files) {
      const rel = relative(root, path);
      const dir = rel.split(/[\\/]/).slice(0, -1).join('/');
      // A file may hold several YAML documents separated by '---'.
      const docs = yaml.loadAll(readFileSync(path, 'utf8'), undefined, { schema: CASE_SCHEMA }) as ({ cases?: Record<string, unknown>[] } | undefined)[];
      docs.flatMap((doc) => doc?.cases ?? []).forEach((c, index) => {
        const str = (k: string): string | undefined => (typeof c[k] === 'string' ? (c[k] as string) : undefined);
        const kase: ConformanceCase = {
          dir,
          file: rel,
          index,
          note: str('note') ?? `${rel}#${index}`,
          regoVersion,
          modules: Array.isArray(c['modules']) ? (c['modules'] as unknown[]).map(String) : [],
          query: str('query') ?? '',
          raw: c,
        };
        if ('data' in c) kase.data = c['data'];
        if ('input' in c) kase.input = c['input'];
        if (str('input_term') !== undefined) kase.input_term = str('input_term');
        if (Array.isArray(c['want_result'])) kase.want_result = c['want_result'] as Record<string, unknown>[];
        if (str('want_error_code') !== undefined) kase.want_error_code = str('want_error_code');
        if (str('want_error') !== undefined) kase.want_error = str('want_error');
        if (c['strict_error'] === true) kase.strict_error = true;
        if (c['sort_bindings'] === true) kase.sort_bindings = true;
        if (c['skip'] === true) kase.skip = true;
        cases.push(kase);
      });
    }
  }
  return cases;
}
