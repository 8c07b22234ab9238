// `opa test` reports: the pretty one (failing tests, or every test with -v, grouped under
// their file; a FAILURES section with traces when verbose; "PASS: n/m" style summary) and
// the JSON one (an array of results with OPA's field names, durations in nanoseconds).

import { Buffer } from 'node:buffer';
import { goBenchMemString, goBenchString } from './bench-loop.js';
import { formatDuration } from './duration.js';
import { jsonText, ordered } from './json-out.js';
import type { SubResult, TestResult } from './test-runner.js';
import { prettyVarValues, type SourceLines } from './var-values.js';

const HL = '-'.repeat(80);

function outcome(r: TestResult): string {
  if (r.skip) return 'SKIPPED';
  if (r.error) return 'ERROR';
  return r.fail ? 'FAIL' : 'PASS';
}

/** A result's line: `data.pkg.test_x: PASS (1.2ms)` (OPA's Result.String without sub-results). */
export function resultLine(r: TestResult): string {
  return r.skip ? `${r.pkg}.${r.name}: SKIPPED` : `${r.pkg}.${r.name}: ${outcome(r)} (${formatDuration(r.durationNs)})`;
}

function indent(text: string, n = 2): string {
  return text
    .split('\n')
    .map((l) => (l ? ' '.repeat(n) + l : l))
    .join('\n');
}

export function errorText(r: TestResult): string {
  const e = r.error!;
  const loc = e.location ? `${e.location.file}:${e.location.row}: ` : '';
  return `${loc}${e.code ? e.code + ': ' : ''}${e.message}`;
}

/** Sub-results depth first, in name order, with their depth (1 for a test's own cases). */
function eachSub(sub: Map<string, SubResult> | undefined, fn: (sr: SubResult, lineage: string[]) => void, prefix: string[] = []): void {
  if (!sub) return;
  for (const k of [...sub.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const sr = sub.get(k)!;
    fn(sr, [...prefix, k]);
    eachSub(sr.sub, fn, [...prefix, k]);
  }
}

function subLine(sr: SubResult, depth: number): string {
  return `${'  '.repeat(depth)}${sr.name}: ${sr.fail ? 'FAIL' : 'PASS'}`;
}

export interface PrettyOptions {
  verbose: boolean;
  benchMem?: boolean;
  /** -f gobench: benchmark names as the Go benchmark format wants them (BenchmarkDataPkgTestX). */
  goBench?: boolean;
  /** --var-values: each failure shows the expression it failed on, with its variables' values. */
  varValues?: { source: SourceLines };
}

/** OPA's failure line: a blank line, then `file:row:` and the expression with its values. */
function failureLines(f: TestResult, source: SourceLines): string[] {
  const e = f.failure;
  if (!e?.location) return [''];
  return ['', `  ${e.location.file}:${e.location.row}:`, ...prettyVarValues(e, source).map((l) => '    ' + l)];
}

/** OPA's gobench name: data.foo.bar.test_auth -> BenchmarkDataFooBarTestAuth (each part title-cased, as Go's strings.Title). */
export function goBenchName(name: string): string {
  return 'Benchmark' + name.replace(/_/g, '.').split('.').map((p) => p.replace(/^./, (c) => c.toUpperCase())).join('');
}

export function prettyReport(results: TestResult[], o: PrettyOptions): string {
  const out: string[] = [];
  let lastFile = '';
  let dirty = false;
  for (const r of results) {
    const ok = !r.fail && !r.skip && !r.error;
    if (ok && r.bench) {
      dirty = true;
      const name = o.goBench ? goBenchName(`${r.pkg}.${r.name}`) : `${r.pkg}.${r.name}`;
      out.push(`${name}\t${goBenchString(r.bench)}${o.benchMem ? '\t' + goBenchMemString(r.bench) : ''}`);
      continue;
    }
    if (!o.verbose && ok) continue;
    if (r.file !== lastFile) {
      if (lastFile) out.push('');
      out.push(`${r.file}:`);
      lastFile = r.file;
    }
    dirty = true;
    out.push(resultLine(r));
    eachSub(r.subResults, (sr, lineage) => {
      if (sr.fail || o.verbose) out.push(subLine(sr, lineage.length));
    });
    if (r.output && (o.verbose || !ok)) out.push('', indent(r.output.trimEnd()), '');
    if (r.error) out.push(`  ${errorText(r)}`);
  }
  const failures = results.filter((r) => r.fail && !r.error);
  if ((o.verbose || o.varValues) && failures.length) {
    out.push(HL, 'FAILURES', HL);
    for (const f of failures) {
      out.push(resultLine(f));
      if (f.trace.length) out.push('', indent(f.trace.join('\n')));
      if (o.varValues && !f.subResults?.size) out.push(...failureLines(f, o.varValues.source));
      // every failed case with its lineage
      eachSub(f.subResults, (sr, lineage) => {
        if (sr.fail && sr.sub.size === 0) lineage.forEach((n, i) => out.push(`${'  '.repeat(i + 1)}${n}: FAIL`));
      });
      out.push('');
    }
  }
  if (dirty) out.push(HL);
  // A parameterized test counts its cases (the leaves of its sub-results), as opa test does.
  let pass = 0;
  let fail = 0;
  let skip = 0;
  let errs = 0;
  for (const r of results) {
    if (r.skip) skip++;
    else if (r.error) errs++;
    else if (r.subResults?.size) {
      eachSub(r.subResults, (sr) => {
        if (sr.sub.size !== 0) return;
        if (sr.fail) fail++;
        else pass++;
      });
    } else if (r.fail) fail++;
    else pass++;
  }
  const total = pass + fail + skip + errs;
  if (pass) out.push(`PASS: ${pass}/${total}`);
  if (fail) out.push(`FAIL: ${fail}/${total}`);
  if (skip) out.push(`SKIPPED: ${skip}/${total}`);
  if (errs) out.push(`ERROR: ${errs}/${total}`);
  return out.length ? out.join('\n') + '\n' : '';
}

/** OPA's sub_results: {name: {sub_results?, name, fail?}} (empty fields left out). */
function subResultsJSON(sub: Map<string, SubResult>): unknown {
  const out: Record<string, unknown> = {};
  for (const k of [...sub.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const sr = sub.get(k)!;
    out[k] = ordered({
      sub_results: sr.sub.size ? subResultsJSON(sr.sub) : undefined,
      name: sr.name || undefined,
      fail: sr.fail ? true : undefined,
    });
  }
  return ordered(out);
}

export function jsonReport(results: TestResult[]): string {
  const list = results.map((r) =>
    ordered({
      location: ordered({ file: r.file, row: r.row, col: r.col }),
      package: r.pkg,
      name: r.name,
      sub_results: r.subResults?.size ? subResultsJSON(r.subResults) : undefined,
      fail: r.fail && !r.error ? true : undefined,
      error: r.error
        ? ordered({
            code: r.error.code || undefined,
            message: r.error.message,
            location: r.error.location ? ordered({ ...r.error.location }) : undefined,
          })
        : undefined,
      skip: r.skip ? true : undefined,
      duration: r.durationNs,
      trace: r.events ?? (r.trace.length ? r.trace : undefined),
      output: r.output ? Buffer.from(r.output).toString('base64') : undefined,
      benchmark_result: r.bench
        ? ordered({ N: r.bench.n, T: r.bench.totalNs, Bytes: 0, MemAllocs: r.bench.allocsPerOp * r.bench.n, MemBytes: r.bench.bytesPerOp * r.bench.n })
        : undefined,
    }),
  );
  return (list.length ? jsonText(list) : '[]') + '\n';
}
