// `opa test` reports: the pretty one (failing tests, or every test with -v, grouped under
// their file; a FAILURES section with traces when verbose; "PASS: n/m" style summary) and
// the JSON one (an array of results with OPA's field names, durations in nanoseconds).

import { Buffer } from 'node:buffer';
import { goBenchMemString, goBenchString } from './bench-loop.js';
import { formatDuration } from './duration.js';
import { jsonText, ordered } from './json-out.js';
import type { TestResult } from './test-runner.js';

const HL = '-'.repeat(80);

function outcome(r: TestResult): string {
  if (r.skip) return 'SKIPPED';
  if (r.error) return 'ERROR';
  return r.fail ? 'FAIL' : 'PASS';
}

function line(r: TestResult): string {
  return r.skip ? `${r.pkg}.${r.name}: SKIPPED` : `${r.pkg}.${r.name}: ${outcome(r)} (${formatDuration(r.durationNs)})`;
}

function indent(text: string, n = 2): string {
  return text
    .split('\n')
    .map((l) => (l ? ' '.repeat(n) + l : l))
    .join('\n');
}

function errorText(r: TestResult): string {
  const e = r.error!;
  const loc = e.location ? `${e.location.file}:${e.location.row}: ` : '';
  return `${loc}${e.code ? e.code + ': ' : ''}${e.message}`;
}

export interface PrettyOptions {
  verbose: boolean;
  benchMem?: boolean;
}

export function prettyReport(results: TestResult[], o: PrettyOptions): string {
  const out: string[] = [];
  let lastFile = '';
  let dirty = false;
  for (const r of results) {
    const ok = !r.fail && !r.skip && !r.error;
    if (ok && r.bench) {
      dirty = true;
      out.push(`${r.pkg}.${r.name}\t${goBenchString(r.bench)}${o.benchMem ? '\t' + goBenchMemString(r.bench) : ''}`);
      continue;
    }
    if (!o.verbose && ok) continue;
    if (r.file !== lastFile) {
      if (lastFile) out.push('');
      out.push(`${r.file}:`);
      lastFile = r.file;
    }
    dirty = true;
    out.push(line(r));
    if (r.output && (o.verbose || !ok)) out.push('', indent(r.output.trimEnd()), '');
    if (r.error) out.push(`  ${errorText(r)}`);
  }
  const failures = results.filter((r) => r.fail && !r.error);
  if (o.verbose && failures.length) {
    out.push(HL, 'FAILURES', HL);
    for (const f of failures) {
      out.push(line(f));
      if (f.trace.length) out.push('', indent(f.trace.join('\n')));
      out.push('');
    }
  }
  if (dirty) out.push(HL);
  const count = (p: (r: TestResult) => boolean): number => results.filter(p).length;
  const total = results.length;
  const pass = count((r) => !r.fail && !r.skip && !r.error);
  const fail = count((r) => r.fail && !r.error);
  const skip = count((r) => r.skip);
  const errs = count((r) => !!r.error);
  if (pass) out.push(`PASS: ${pass}/${total}`);
  if (fail) out.push(`FAIL: ${fail}/${total}`);
  if (skip) out.push(`SKIPPED: ${skip}/${total}`);
  if (errs) out.push(`ERROR: ${errs}/${total}`);
  return out.length ? out.join('\n') + '\n' : '';
}

export function jsonReport(results: TestResult[]): string {
  const list = results.map((r) =>
    ordered({
      location: ordered({ file: r.file, row: r.row, col: r.col }),
      package: r.pkg,
      name: r.name,
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
      trace: r.trace.length ? r.trace : undefined,
      output: r.output ? Buffer.from(r.output).toString('base64') : undefined,
      benchmark_result: r.bench
        ? ordered({ N: r.bench.n, T: r.bench.totalNs, Bytes: 0, MemAllocs: r.bench.allocsPerOp * r.bench.n, MemBytes: r.bench.bytesPerOp * r.bench.n })
        : undefined,
    }),
  );
  return (list.length ? jsonText(list) : '[]') + '\n';
}
