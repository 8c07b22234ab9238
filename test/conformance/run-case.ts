// Runs one conformance case through the compiler and evaluator and compares the outcome
// with the case's expectation (bindings, or error code and message).

import type { ConformanceCase } from './cases.js';
import { parseModule, parseQuery, parseTerm } from '../../src/lang/index.js';
import { compile } from '../../src/compiler/index.js';
import { QueryPlan } from '../../src/eval/query.js';
import { constValue } from '../../src/eval/closures/terms.js';
import { compareNumbers, isNumber, isObject, objectEntries, RSet, toJS, toJSONText, type Value } from '../../src/value/index.js';
import '../../src/eval/builtins/index.js';
import './test-builtins.js';

/** Whether a Rego value matches an expected YAML value: sets as unordered arrays, numbers by value. */
function matches(got: Value, want: unknown, unordered = false): boolean {
  if (got instanceof RSet || (unordered && Array.isArray(got))) {
    const items = got instanceof RSet ? got.values() : (got as Value[]);
    if (!Array.isArray(want) || want.length !== items.length) return false;
    const used = new Set<number>();
    for (const g of items) {
      const i = want.findIndex((w, j) => !used.has(j) && matches(g, w, unordered));
      if (i < 0) return false;
      used.add(i);
    }
    return true;
  }
  if (Array.isArray(got)) return Array.isArray(want) && want.length === got.length && got.every((g, i) => matches(g, want[i], unordered));
  if (isObject(got)) {
    if (!want || typeof want !== 'object' || Array.isArray(want)) return false;
    const w = want as Record<string, unknown>;
    const entries = objectEntries(got);
    if (entries.length !== Object.keys(w).length) return false;
    return entries.every(([k, v]) => {
      const key = typeof k === 'string' ? k : toJSONText(k);
      return Object.hasOwn(w, key) && matches(v, w[key], unordered);
    });
  }
  if (isNumber(got)) return isNumber(want) && compareNumbers(got, want) === 0;
  return got === want;
}

function canon(v: unknown): string {
  return JSON.stringify(toJS(v as Value));
}

function sameResults(got: Record<string, Value>[], want: Record<string, unknown>[], sorted: boolean): boolean {
  if (got.length !== want.length) return false;
  const one = (g: Record<string, Value>, w: Record<string, unknown>) =>
    Object.keys(g).length === Object.keys(w ?? {}).length && Object.keys(g).every((k) => Object.hasOwn(w ?? {}, k) && matches(g[k]!, w[k], sorted));
  if (!sorted) return got.every((g, i) => one(g, want[i]!));
  const used = new Set<number>();
  return got.every((g) => {
    const i = want.findIndex((w, j) => !used.has(j) && one(g, w));
    if (i < 0) return false;
    used.add(i);
    return true;
  });
}

export function runCase(c: ConformanceCase): { ok: boolean; detail: string } {
  const opts = { regoVersion: c.regoVersion } as const;
  let results: Record<string, Value>[];
  try {
    const modules = c.modules.map((text, i) => parseModule(text, { filename: `test-${i}.rego`, ...opts }));
    const policy = compile(modules);
    const body = parseQuery(c.query, opts);
    const cq = policy.compileQuery(body);
    const plan = new QueryPlan(policy, cq, body);
    let input: Value | undefined = c.input as Value | undefined;
    if (c.input_term !== undefined) input = constValue(parseTerm(c.input_term));
    const raw = plan.run({ input, data: (c.data ?? {}) as Value, strict: !!c.strict_error, print: () => {} });
    results = raw.map((r) => {
      const o: Record<string, Value> = {};
      for (const [k, v] of r.bindings) o[k] = v;
      return o;
    });
  } catch (e) {
    const err = e as { code?: string; message?: string; errors?: { code: string; message: string }[] };
    if (c.want_error_code || c.want_error !== undefined) {
      const codes = [err.code, ...(err.errors ?? []).map((x) => x.code)];
      const codeOk = !c.want_error_code || codes.includes(c.want_error_code);
      const msgOk = !c.want_error || (err.message ?? '').includes(c.want_error);
      return { ok: codeOk && msgOk, detail: `error ${err.code}: ${err.message}` };
    }
    return { ok: false, detail: `unexpected error: ${err.message ?? String(e)}`.slice(0, 400) };
  }
  if (c.want_error_code || c.want_error !== undefined) return { ok: false, detail: `expected error ${c.want_error_code ?? ''} ${c.want_error ?? ''}, got ${canon(results)}`.slice(0, 400) };
  const want = c.want_result ?? [];
  const ok = sameResults(results, want, !!c.sort_bindings);
  return { ok, detail: ok ? '' : `got ${canon(results)}\nwant ${canon(want)}`.slice(0, 600) };
}

