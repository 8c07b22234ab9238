// Discovering and running Rego tests as `opa test` does. A rule is a test when its head's
// ground ref reaches a name starting with "test_" (skipped with "todo_test_"); the test is
// that ref (`test_x`, `a.test_b`), evaluated as data.<package>.<ref>, and passes when its
// value is true. A rule with a variable key (`test_p[x] if ...`, an object of cases) is a
// parameterized test: each key is a case (a sub-result, failing when its value is not
// true), and a call of internal.test_case([key...]) is injected after the expressions that
// bind the key, so a case whose body fails later is reported as a failed case. Each test
// gets its own time budget; print() output is captured per test.

import {
  BufferTracer,
  CoverageTracer,
  isPlainObject,
  objectEntries,
  RObject,
  toJSONText,
  type Body,
  type Expr,
  type ExplainMode,
  type Module,
  type RegoErrorDetail,
  type Rule,
  type Term,
  type TraceEvent,
  type Tracer,
  type Value,
} from '../engine/index.js';

/** One tracer feeding the explanation, the coverage and the test cases (any may be absent). */
function teeTracer(...ts: (Tracer | undefined)[]): Tracer | undefined {
  const all = ts.filter((t): t is Tracer => t !== undefined);
  if (all.length <= 1) return all[0];
  return {
    note: (m) => all.forEach((t) => t.note(m)),
    event: (e) => all.forEach((t) => t.event?.(e)),
    testCase: (p) => all.forEach((t) => t.testCase?.(p)),
  };
}
import { benchmark, type BenchResult } from './bench-loop.js';
import { toErrorDetails, type PolicySet } from '../runtime/policy-set.js';
import { prepareQuery, runPrepared } from '../runtime/query.js';
import { failingEvent, withExprVars } from './var-values.js';

export interface TestCase {
  file: string;
  row: number;
  col: number;
  /** "data.a.b" */
  pkg: string;
  /** "test_x" (or "p.q.test_x" for a rule with a ref head) */
  name: string;
  todo: boolean;
  /** A rule with a variable key (`test_p[x] if ...`): its cases are sub-results. */
  parameterized: boolean;
}

/** One case of a parameterized test (nested for keys of several levels). */
export interface SubResult {
  name: string;
  fail: boolean;
  sub: Map<string, SubResult>;
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
  /** The cases of a parameterized test, by name. */
  subResults?: Map<string, SubResult>;
  /** --var-values: the expression the test failed on, with its locals. */
  failure?: TraceEvent;
  /** --var-values: the trace events (explain mode filtered) in OPA's JSON form. */
  events?: Record<string, unknown>[];
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

/**
 * The test a rule defines, as OPA's runner finds it: the head's ground ref up to the first
 * name that starts with test_ or todo_test_ (its text, and how many ref terms it spans).
 */
function testRef(ref: Term[]): { name: string; last: string; length: number } | undefined {
  let s = '';
  for (let i = 0; i < ref.length; i++) {
    const t = ref[i]!;
    if (!(i === 0 ? t.type === 'var' : t.type === 'string')) return undefined;
    s += refPart(t, i === 0)!;
    const n = (t as { value: string }).value;
    if (n.startsWith('test_') || n.startsWith('todo_test_')) return { name: s, last: n, length: i + 1 };
  }
  return undefined;
}

/** Test rules of the modules, in file order, each name once per package. */
export function discoverTests(modules: Map<string, Module>, filter?: RegExp): TestCase[] {
  const out: TestCase[] = [];
  const seen = new Set<string>();
  for (const [file, m] of [...modules.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const pkg = packageName(m);
    for (const r of m.rules) {
      if (r.head.args?.length) continue;
      const t = testRef(r.head.ref);
      if (!t) continue;
      const key = `${pkg}.${t.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (filter && !filter.test(key)) continue;
      const loc = r.location ?? r.head.location;
      out.push({ file, row: loc?.row ?? 0, col: loc?.col ?? 0, pkg, name: t.name, todo: t.last.startsWith('todo_test_'), parameterized: isParameterized(r) });
    }
  }
  return out;
}

/** OPA's partial-object rule: a key and a value (`p[x] if`, `p[x] := v`). */
function isParameterized(r: Rule): boolean {
  return r.head.key !== undefined && r.head.value !== undefined;
}

// ---- test-case injection ------------------------------------------------------------

/** Every node of an AST value (skipping locations). */
function walk(x: unknown, fn: (o: Record<string, unknown>) => void): void {
  if (Array.isArray(x)) {
    for (const y of x) walk(y, fn);
    return;
  }
  if (x === null || typeof x !== 'object') return;
  const o = x as Record<string, unknown>;
  fn(o);
  for (const [k, v] of Object.entries(o)) if (k !== 'location') walk(v, fn);
}

function varsOf(x: unknown): Set<string> {
  const out = new Set<string>();
  walk(x, (o) => {
    if (o['type'] === 'var' && typeof o['value'] === 'string') out.add(o['value']);
  });
  return out;
}

function isTestCaseRef(o: Record<string, unknown>): boolean {
  if (o['type'] !== 'ref' || !Array.isArray(o['value'])) return false;
  const v = o['value'] as Term[];
  return v.length === 2 && v[0]!.type === 'var' && v[0]!.value === 'internal' && v[1]!.type === 'string' && v[1]!.value === 'test_case';
}

/**
 * The rule with `internal.test_case([k1, ...])` (the head's ref after the test name)
 * inserted right after the expression where the last of those keys is first mentioned, so
 * the case is recorded before any later expression can fail. A rule calling
 * internal.test_case itself is left as written.
 */
function withTestCase(rule: Rule, testLength: number): Rule | undefined {
  const tail = rule.head.ref.slice(testLength);
  if (!tail.length) return undefined;
  let manual = false;
  walk(rule.body, (o) => (manual ||= isTestCaseRef(o)));
  if (manual) return undefined;
  const firstUse = (name: string): number => rule.body.findIndex((e) => varsOf(e).has(name));
  let below = -1;
  for (const t of tail) for (const v of varsOf(t)) below = Math.max(below, firstUse(v));
  const call: Expr = {
    index: 0,
    terms: [
      { type: 'ref', value: [{ type: 'var', value: 'internal' }, { type: 'string', value: 'test_case' }] },
      { type: 'array', value: tail },
    ],
    generated: true,
  };
  const body: Body = [...rule.body.slice(0, below + 1), call, ...rule.body.slice(below + 1)].map((e, index) => ({ ...e, index }));
  return { ...rule, body };
}

/** Adds the test-case calls to the parameterized tests' rules (the written modules stay as they are). */
function injectTestCases(set: PolicySet): void {
  for (const [file, m] of set.modules) {
    let changed = false;
    const rules = m.rules.map((r) => {
      const t = r.head.args?.length ? undefined : testRef(r.head.ref);
      const injected = t && !t.last.startsWith('todo_test_') && isParameterized(r) ? withTestCase(r, t.length) : undefined;
      if (injected) changed = true;
      return injected ?? r;
    });
    if (changed) set.regolith.addParsedModule(file, { ...m, rules });
  }
}

// ---- outcomes -----------------------------------------------------------------------

/** A case's name: a string key as is, any other key as JSON. */
function caseName(k: Value): string {
  return typeof k === 'string' ? k : toJSONText(k);
}

function subResultOf(name: string, v: Value): SubResult {
  if (v === null) return { name: '', fail: false, sub: new Map() };
  if (isPlainObject(v) || v instanceof RObject) {
    const { fail, sub } = subResults(v);
    return { name, fail, sub };
  }
  return { name, fail: v !== true, sub: new Map() };
}

/** The cases of a parameterized test's value, as OPA's runner reads them. */
function subResults(v: Value): { fail: boolean; sub: Map<string, SubResult> } {
  const sub = new Map<string, SubResult>();
  if (v === null) return { fail: true, sub };
  let fail = false;
  if (isPlainObject(v) || v instanceof RObject)
    for (const [k, x] of objectEntries(v)) {
      const sr = subResultOf(caseName(k), x);
      sub.set(caseName(k), sr);
      fail ||= sr.fail;
    }
  return { fail, sub };
}

/** Records a case entered during evaluation: one that is not in the value failed. */
function enterCase(sub: Map<string, SubResult>, path: string[], i = 0): boolean {
  if (i >= path.length) return true;
  let e = sub.get(path[i]!);
  if (!e) sub.set(path[i]!, (e = { name: path[i]!, fail: true, sub: new Map() }));
  if (i === path.length - 1) return e.fail;
  const fail = enterCase(e.sub, path, i + 1);
  if (fail) e.fail = true;
  return fail;
}

export interface RunTestsOptions {
  timeoutMs: number;
  trace: boolean;
  /** Which events a failing test shows (opa test's --explain, default fails). */
  explain?: ExplainMode;
  /** Trace every test to report the failing expression's variables (opa test --var-values). */
  varValues?: boolean;
  /** How many tests may be in flight at once (opa test -p; 1 when absent or 0). */
  parallel?: number;
  /** Receives every test's trace events (coverage). */
  coverage?: CoverageTracer;
  bench?: { benchTimeMs: number };
  onResult?: (r: TestResult, index: number, total: number) => void;
}

/** A test passes when its value is true (OPA's runner wants the boolean true). */
function passed(results: { expressions: { value: Value }[] }[]): boolean {
  return results.length > 0 && results[0]!.expressions[0]!.value === true;
}

export async function runTests(set: PolicySet, data: Value, cases: TestCase[], o: RunTestsOptions): Promise<TestResult[]> {
  if (cases.some((c) => c.parameterized && !c.todo)) injectTestCases(set);
  // -p/--parallel: up to that many tests in flight (they overlap where evaluation waits, as
  // on http.send); the report keeps the tests' file order whatever order they finish in.
  const results: TestResult[] = new Array(cases.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const i = next++;
      results[i] = await runOne(set, data, cases[i]!, o);
      o.onResult?.(results[i], done++, cases.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(o.parallel ?? 1, 1), Math.max(cases.length, 1)) }, worker));
  return results;
}

async function runOne(set: PolicySet, data: Value, c: TestCase, o: RunTestsOptions): Promise<TestResult> {
  const r: TestResult = { ...c, fail: false, skip: c.todo, durationNs: 0, trace: [], output: '' };
  if (c.todo) return r;
  const printed: string[] = [];
  const buffer = o.trace || o.varValues ? new BufferTracer(o.explain ?? 'fails') : undefined;
  const entered: Value[] = [];
  const cases: Tracer | undefined = c.parameterized ? { note: () => {}, testCase: (p) => entered.push(p) } : undefined;
  const tracer = teeTracer(buffer, o.coverage, cases);
  const t0 = process.hrtime.bigint();
  try {
    const prepared = prepareQuery(set, `${c.pkg}.${c.name}`, 'v1');
    const rs = await runPrepared(prepared, { data, timeoutMs: o.timeoutMs, tracer, print: (m) => printed.push(m) });
    if (c.parameterized && rs.length > 0) {
      const { fail, sub } = subResults(rs[0]!.expressions[0]!.value);
      r.fail = fail;
      for (const p of entered) if (Array.isArray(p) && enterCase(sub, p.map(caseName))) r.fail = true;
      r.subResults = sub;
    } else r.fail = !passed(rs);
    if (!r.fail && o.bench) {
      r.bench = await benchmark(() => runPrepared(prepared, { data, print: () => {} }), o.bench.benchTimeMs);
    }
  } catch (e) {
    const errors = toErrorDetails(e);
    r.error = errors[0];
  }
  r.durationNs = Number(process.hrtime.bigint() - t0);
  r.output = printed.length ? printed.join('\n') + '\n' : '';
  if (buffer && o.trace) r.trace = o.varValues ? withExprVars(buffer.lines(), buffer.events) : buffer.lines();
  if (buffer && o.varValues) {
    if (r.fail) r.failure = failingEvent(buffer.all);
    const events = buffer.json();
    if (events.length) r.events = events;
  }
  return r;
}
