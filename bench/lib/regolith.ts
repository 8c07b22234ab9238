// Loads a policy file from bench/policies into a Regolith instance and prepares a
// decision function that starts from the JSON text of the input, as a server does.

import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Regolith, type PreparedQuery } from '../../src/index.js';

// BENCH_DIR is set by bench/profile.ts, which runs a bundled copy from elsewhere.
export const POLICY_DIR = process.env['BENCH_DIR'] ? pathToFileURL(join(process.env['BENCH_DIR'], 'policies/')) : new URL('../policies/', import.meta.url);

export function policyText(file: string): string {
  return readFileSync(new URL(file, POLICY_DIR), 'utf8');
}

export function load(file: string, data: unknown): Regolith {
  const r = new Regolith();
  r.addModule(file, policyText(file));
  r.setData(data);
  return r;
}

/** The decision (first expression of the first result), or `undefinedAs` when undefined. */
export function decide(pq: PreparedQuery, input: unknown, undefinedAs?: unknown): unknown {
  const v = pq.evaluate({ input })[0]?.expressions[0]?.value;
  return v === undefined ? undefinedAs : v;
}

export function fromJSON(pq: PreparedQuery, undefinedAs?: unknown): (json: string) => unknown {
  return (json) => decide(pq, JSON.parse(json), undefinedAs);
}

export function same(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}

export function fail(message: string): never {
  console.error('ABORT: ' + message);
  process.exit(1);
}
