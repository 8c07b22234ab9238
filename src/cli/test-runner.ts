// Discovering and running Rego tests as `opa test` does: every rule whose name starts with
// "test_" is a test (evaluated as data.<package>.<name>: it passes when defined and not
// false); "todo_" rules are reported as skipped. Each test gets its own time budget;
// print() output is captured per test.

import { BufferTracer, CoverageTracer, type ExplainMode, type Module, type RegoErrorDetail, type Term, type Tracer, type Value } from '../engine/index.js';

/** One tracer feeding both the explanation and the coverage (either may be absent). */
function teeTracer(a: Tracer | undefined, b: Tracer | undefined): Tracer | undefined {
  if (!a || !b) return a ?? b;
  return {
    note: (m) => (a.note(m), b.note(m)),
    event: (e) => (a.event?.(e), b.event?.(e)),
  };
}
import { benchmark, type BenchResult } from './bench-loop.js';
import { toErrorDetails, type PolicySet } from './policy-set.js';
import { prepareQuery, runPrepared } from './run-query.js';

export interface TestCase {
  file: string;
  row: number;
  col: number;
  /** "data.a.b" */
  pkg: string;
  /** "test_x" (or "p.q.test_x" for a rule with a ref head) */
  name: string;
  todo: boolean;
}

export interface TestResult extends TestCase {
  fail: boolean;
  skip: boolean;
  error?: RegoErrorDetail;
  durationNs: number;
  /** Explanation lines (notes) when tracing was asked for. */
  trace: string[];
  output: string;
  bench?: BenchResult;
}

const IDENT = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function refPart(t: Term, first: boolean): string | undefined {
  if (t.type === 'var') return first ? t.value : undefined;
  if (t.type === 'string') return IDENT.test(t.value) ? (first ? t.value : `.${t.value}`) : `[${JSON.stringify(t.value)}]`;
  return undefined;
}

function packageName(m: Module): string {
  let s = 'data';
  for (const t of m.package.path.slice(1)) {
    if (t.type !== 'string') return s;
    s += IDENT.test(t.value) ? `.${t.value}` : `[${JSON.stringify(t.value)}]`;
  }
  return s;
}

function ruleName(ref: Term[]): string | undefined {
  let s = '';
  for (let i = 0; i < ref.length; i++) {
    const p = refPart(ref[i]!, i === 0);
    if (p === undefined) return undefined;
    s += p;
  }
  return s;
}

/** Test rules of the modules, in file order, each name once per package. */
export function discoverTests(modules: Map<string, Module>, filter?: RegExp): TestCase[] {
  const out: TestCase[] = [];
  const seen = new Set<string>();
  for (const [file, m] of [...modules.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const pkg = packageName(m);
    for (const r of m.rules) {
      if (r.head.args?.length) continue;
      const name = ruleName(r.head.ref);
      if (!name) continue;
      const last = name.split('.').pop()!;
      const todo = last.startsWith('todo_');
      if (!last.startsWith('test_') && !todo) continue;
      const key = `${pkg}.${name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (filter && !filter.test(key)) continue;
      const loc = r.location ?? r.head.location;
      out.push({ file, row: loc?.row ?? 0, col: loc?.col ?? 0, pkg, name, todo });
    }
  }
  return out;
}

export interface RunTestsOptions {
  timeoutMs: number;
  trace: boolean;
  /** Which events a failing test shows (opa test's --explain, default fails). */
  explain?: ExplainMode;
  /** Receives every test's trace events (coverage). */
  coverage?: CoverageTracer;
  bench?: { benchTimeMs: number };
  onResult?: (r: TestResult, index: number, total: number) => void;
}

function passed(results: { expressions: { value: Value }[] }[]): boolean {
  return results.length > 0 && results[0]!.expressions[0]!.value !== false;
}

export async function runTests(set: PolicySet, data: Value, cases: TestCase[], o: RunTestsOptions): Promise<TestResult[]> {
  const results: TestResult[] = [];
  for (const [i, c] of cases.entries()) {
    const r: TestResult = { ...c, fail: false, skip: c.todo, durationNs: 0, trace: [], output: '' };
    if (!c.todo) {
      const printed: string[] = [];
      const buffer = o.trace ? new BufferTracer(o.explain ?? 'fails') : undefined;
      const tracer = teeTracer(buffer, o.coverage);
      const t0 = process.hrtime.bigint();
      try {
        const prepared = prepareQuery(set, `${c.pkg}.${c.name}`, 'v1');
        const rs = await runPrepared(prepared, { data, timeoutMs: o.timeoutMs, tracer, print: (m) => printed.push(m) });
        r.fail = !passed(rs);
        if (!r.fail && o.bench) {
          r.bench = await benchmark(() => runPrepared(prepared, { data, print: () => {} }), o.bench.benchTimeMs);
        }
      } catch (e) {
        const errors = toErrorDetails(e);
        r.error = errors[0];
      }
      r.durationNs = Number(process.hrtime.bigint() - t0);
      r.output = printed.length ? printed.join('\n') + '\n' : '';
      if (buffer) r.trace = buffer.lines();
    }
    results.push(r);
    o.onResult?.(r, i, cases.length);
  }
  return results;
}
