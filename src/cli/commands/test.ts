// `regolith test`: runs the test_* rules found in policy files and directories (or bundles
// with -b) and reports like `opa test`. Exit codes as opa: 0 when every test passes, 2
// when a test fails, errors or is skipped (unless -z), 1 when loading or compiling fails.

import { parseDuration } from '../duration.js';
import { CLIError } from '../io.js';
import { loadPaths } from '../../runtime/load-paths.js';
import { BENCH_FORMATS } from '../options.js';
import { buildPolicySet, prettyErrorText, toErrorDetails } from '../../runtime/policy-set.js';
import { jsonReport, prettyReport } from '../test-report.js';
import { discoverTests, runTests, type TestResult } from '../test-runner.js';
import { CoverageTracer, coverageReport, thresholdMessage, type ExplainMode, type Module } from '../../engine/index.js';

interface TestFlags {
  verbose?: boolean;
  run?: string;
  format: string;
  coverage?: boolean;
  threshold: string;
  timeout: string;
  bench?: boolean;
  benchmem: boolean;
  exitZeroOnSkipped?: boolean;
  bundle?: boolean;
  ignore: string[];
  explain?: string;
  failOnEmpty?: boolean;
  v0Compatible?: boolean;
  v1Compatible?: boolean;
}

const FORMATS = BENCH_FORMATS;
const EXPLAIN = ['fails', 'full', 'notes', 'debug'];
const BENCH_TIME_MS = 1000;

function progress(r: TestResult, i: number, total: number): void {
  // A terminal reporting no width (columns 0, as under `script`) gets 80, never a negative slice.
  const width = Math.max(process.stderr.columns || 80, 20);
  const text = `running ${i + 1}/${total}: ${r.pkg}.${r.name}`.slice(0, width - 1);
  process.stderr.write(`\r\x1b[2K${text}`);
  if (i + 1 === total) process.stderr.write('\r\x1b[2K');
}

async function doTest(paths: string[], f: TestFlags): Promise<number> {
  if (!FORMATS.includes(f.format)) throw new CLIError(`invalid argument "${f.format}" for "-f, --format" flag: must be one of {${FORMATS.join(', ')}}`);
  if (f.explain !== undefined && !EXPLAIN.includes(f.explain)) {
    throw new CLIError(`invalid argument "${f.explain}" for "--explain" flag: must be one of {${EXPLAIN.join(', ')}}`);
  }
  if (f.format === 'gobench' && !f.bench) {
    process.stderr.write('cannot use output format gobench without running benchmarks (--bench)\n');
    return 0;
  }
  const threshold = Number(f.threshold);
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 100) throw new CLIError('Code coverage threshold must be between 0 and 100');
  if (f.coverage && f.bench) throw new CLIError('coverage reporting is not supported when benchmarking tests');
  let filter: RegExp | undefined;
  if (f.run !== undefined) {
    try {
      filter = new RegExp(f.run);
    } catch (e) {
      throw new CLIError(`invalid --run regular expression: ${(e as Error).message}`);
    }
  }
  const timeoutArg = parseDuration(f.timeout);
  if (timeoutArg === undefined) throw new CLIError(`invalid argument "${f.timeout}" for "--timeout" flag: time: invalid duration "${f.timeout}"`);
  const timeoutMs = timeoutArg || (f.bench ? 30_000 : 5_000);
  const verbose = !!f.verbose || f.explain !== undefined;
  const regoVersion = f.v0Compatible ? 'v0' : 'v1';

  let results: TestResult[];
  let modules: Map<string, Module> = new Map();
  const coverage = f.coverage ? new CoverageTracer() : undefined;
  try {
    const loaded = await loadPaths({
      paths: f.bundle ? [] : paths,
      bundles: f.bundle ? paths : [],
      ignore: f.ignore,
      regoVersion,
    });
    const set = buildPolicySet(loaded, { regoVersion });
    const cases = discoverTests(set.modules, filter);
    const showProgress = !!process.stderr.isTTY && f.format === 'pretty' && !verbose && cases.length > 1;
    modules = set.modules;
    results = await runTests(set, loaded.data, cases, {
      timeoutMs,
      trace: verbose,
      explain: f.explain as ExplainMode | undefined,
      coverage,
      bench: f.bench ? { benchTimeMs: BENCH_TIME_MS } : undefined,
      onResult: showProgress ? progress : undefined,
    });
  } catch (e) {
    process.stderr.write(prettyErrorText(toErrorDetails(e)) + '\n');
    return 1;
  }

  if (coverage) {
    // as opa test: with --coverage the output is the JSON coverage report, whatever the format
    const report = coverageReport(coverage.hits, modules);
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    if ((report.coverage ?? 0) < threshold) {
      process.stderr.write(thresholdMessage(report.coverage ?? 0, threshold) + '\n');
      return 2;
    }
  } else process.stdout.write(f.format === 'json' ? jsonReport(results) : prettyReport(results, { verbose, benchMem: f.benchmem }));
  if (results.length === 0 && f.failOnEmpty) {
    process.stderr.write('no tests were run\n');
    return 1;
  }
  const bad = results.some((r) => r.fail || r.error || (r.skip && !f.exitZeroOnSkipped));
  return bad ? 2 : 0;
}

/** The `regolith test` action (its flags are declared in ../registry/test.ts). */
export const testAction = async (paths: string[], f: TestFlags) => {
  const code = await doTest(paths, f);
  if (code !== 0) throw new CLIError('', code);
};
