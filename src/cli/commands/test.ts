// `regolith test`: runs the test_* rules found in policy files and directories (or bundles
// with -b) and reports like `opa test`. Exit codes as opa: 0 when every test passes, 2
// when a test fails, errors or is skipped (unless -z), 1 when loading or compiling fails.

import { availableParallelism } from 'node:os';
import { parseDuration } from '../duration.js';
import { CLIError } from '../io.js';
import { loadPaths } from '../../runtime/load-paths.js';
import { BENCH_FORMATS } from '../options.js';
import { buildPolicySet, prettyErrorText, toErrorDetails } from '../../runtime/policy-set.js';
import { errorText, jsonReport, prettyReport, resultLine } from '../test-report.js';
import { discoverTests, runTests, type TestResult } from '../test-runner.js';
import { CoverageTracer, coverageReport, thresholdMessage, type CoverageReport, type ExplainMode, type Module } from '../../engine/index.js';
import { command, opt, type OptionsOf } from '../command.js';
import { benchmem, builtins, bundleMode, capabilities, explain, format, ignore, refused, schema, v0Compatible, v1Compatible } from '../flags.js';
import { loadBuiltinModules } from '../../runtime/custom-builtins.js';
import { capabilityOptions } from '../capabilities-flag.js';
import { schemaOptions } from '../schema-flag.js';

const testCommand = command({
  name: 'test',
  description: 'Execute Rego test cases',
  args: [['<path...>', 'policy and test files or directories (bundles with -b)']],
  flags: [
    opt('-v, --verbose', 'set verbose reporting mode'),
    opt('-r, --run <regex>', 'run only test cases matching the regular expression'),
    format(BENCH_FORMATS, 'pretty'),
    opt('-c, --coverage', 'report coverage (overrides debug tracing)'),
    opt('--threshold <percent>', 'set coverage threshold and exit with non-zero status if coverage is less than threshold %', '0'),
    opt('--timeout <duration>', 'set test timeout (default 5s, 30s when benchmarking)', '0'),
    opt('--bench', 'benchmark the unit tests'),
    ...benchmem('do not report memory allocations with benchmark results'),
    opt('-z, --exit-zero-on-skipped', 'skipped tests return status 0'),
    bundleMode(),
    ignore(),
    explain('fails, full, notes, debug'),
    opt('--fail-on-empty', 'exit with non-zero status if no tests were run'),
    v0Compatible(),
    v1Compatible(),
    builtins(),
    capabilities(),
    schema(),
    // OPA's other test flags.
    opt('--count <n>', 'number of times to repeat each test', '1'),
    opt('-p, --parallel <n>', 'the number of tests that can run in parallel, defaulting to the number of CPUs (they overlap where evaluation waits, e.g. on http.send)', String(availableParallelism())),
    opt('-m, --max-errors <n>', 'set the number of errors to allow before compilation fails early', '10'),
    refused('-t, --target <target>', 'set the runtime to exercise (only rego)', (v) =>
      v === 'rego' ? undefined
      : v === 'wasm' ? `--target ${String(v)} is not supported: regolith evaluates Rego directly (no Wasm); drop -t or use -t rego`
      : `invalid argument "${String(v)}" for "-t, --target" flag: must be one of {rego,wasm}`),
    opt('--var-values', 'show local variable values in test output'),
    refused('-w, --watch', 'watch for file changes and re-run tests (not supported)', () =>
      '--watch is not supported by regolith test; re-run it from a file watcher (e.g. `watchexec regolith test .`)'),
  ],
  examples: [
    'regolith test policies/',
    'regolith test -v --run "authz" policies/',
    'regolith test --format json policy.rego policy_test.rego',
    'regolith test --v0-compatible legacy/',
    'regolith test --bench policies/',
  ],
});

type TestFlags = OptionsOf<typeof testCommand>;

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
  const count = Number(f.count);
  if (!Number.isInteger(count) || count < 1) throw new CLIError(`invalid argument "${f.count}" for "--count" flag: must be a positive integer`);
  if (!/^\d+$/.test(f.parallel)) throw new CLIError(`invalid argument "${f.parallel}" for "-p, --parallel" flag: strconv.ParseUint: parsing "${f.parallel}": invalid syntax`);
  if (!/^\d+$/.test(f.maxErrors)) throw new CLIError(`invalid argument "${f.maxErrors}" for "-m, --max-errors" flag: strconv.ParseInt: parsing "${f.maxErrors}": invalid syntax`);
  const verbose = !!f.verbose || f.explain !== undefined;
  const regoVersion = f.v0Compatible ? 'v0' : 'v1';

  // --threshold alone turns coverage on, as in opa test.
  const withCoverage = !!f.coverage || threshold > 0;
  if (withCoverage && f.bench) throw new CLIError('coverage reporting is not supported when benchmarking tests');
  const coverage = withCoverage ? new CoverageTracer() : undefined;
  let run: () => Promise<TestResult[]>;
  let modules: Map<string, Module>;
  const sources = new Map<string, string[]>();
  try {
    const loaded = await loadPaths({
      paths: f.bundle ? [] : paths,
      bundles: f.bundle ? paths : [],
      ignore: f.ignore,
      regoVersion,
    });
    const set = buildPolicySet(loaded, { regoVersion, builtins: await loadBuiltinModules(f.builtins), ...capabilityOptions(f.capabilities), ...schemaOptions(f.schema) });
    const cases = discoverTests(set.modules, filter);
    const showProgress = !!process.stderr.isTTY && f.format === 'pretty' && !verbose && cases.length > 1;
    modules = set.modules;
    for (const m of loaded.modules) sources.set(m.file, m.text.split('\n'));
    run = () => runTests(set, loaded.data, cases, {
      timeoutMs,
      trace: verbose,
      explain: f.explain as ExplainMode | undefined,
      varValues: !!f.varValues,
      // -p 0 is OPA's explicit "number of CPUs"
      parallel: Number(f.parallel) || availableParallelism(),
      coverage,
      bench: f.bench ? { benchTimeMs: BENCH_TIME_MS } : undefined,
      onResult: showProgress ? progress : undefined,
    });
  } catch (e) {
    process.stderr.write(prettyErrorText(toErrorDetails(e)) + '\n');
    return 1;
  }
  // --count: the tests run and are reported that many times, each run on its own, until
  // one does not pass (as opa test loops over its runner and reporter).
  for (let i = 0; i < count; i++) {
    let results: TestResult[];
    try {
      results = await run();
    } catch (e) {
      process.stderr.write(prettyErrorText(toErrorDetails(e)) + '\n');
      return 1;
    }
    const code = coverage ? reportCoverage(results, coverage, modules, threshold, verbose) : report(results, f, verbose, sources);
    if (code !== 0) return code;
  }
  return 0;
}

/** The test report of one run and its exit code (2 for a failing, erroring or skipped test). */
function report(results: TestResult[], f: TestFlags, verbose: boolean, sources: Map<string, string[]>): number {
  process.stdout.write(f.format === 'json' ? jsonReport(results) : prettyReport(results, {
    verbose,
    benchMem: f.benchmem,
    goBench: f.format === 'gobench',
    varValues: f.varValues ? { source: (file, row) => sources.get(file)?.[row - 1] } : undefined,
  }));
  if (results.length === 0 && f.failOnEmpty) {
    process.stderr.write('no tests were run\n');
    return 1;
  }
  const bad = results.some((r) => r.fail || r.error || (r.skip && !f.exitZeroOnSkipped));
  return bad ? 2 : 0;
}

/**
 * OPA's coverage reporter: a test that errors or fails ends the command (exit 1; a failure is
 * printed as the pretty report does it, its line on stderr); below the threshold, only the
 * message (with -v the lines not covered) and exit 2; otherwise the JSON coverage report.
 */
function reportCoverage(results: TestResult[], coverage: CoverageTracer, modules: Map<string, Module>, threshold: number, verbose: boolean): number {
  const errored = results.find((r) => r.error);
  if (errored) {
    process.stderr.write(`${errorText(errored)}\n`);
    return 1;
  }
  const failures = results.filter((r) => r.fail);
  if (failures.length) {
    process.stdout.write(prettyReport(failures, { verbose }));
    process.stderr.write(`${resultLine(failures[0]!)}\n`);
    return 1;
  }
  const cover = coverageReport(coverage.hits, modules);
  if ((cover.coverage ?? 0) < threshold) {
    process.stderr.write(thresholdMessage(cover.coverage ?? 0, threshold) + (verbose ? notCoveredLines(cover) : '') + '\n');
    return 2;
  }
  process.stdout.write(JSON.stringify(cover, null, 2) + '\n');
  return 0;
}

/** cover.CoverageThresholdError's verbose part: each file's uncovered row spans. */
function notCoveredLines(cover: CoverageReport): string {
  const files = Object.keys(cover.files).sort();
  const lines = files.flatMap((file) =>
    (cover.files[file]!.not_covered ?? []).map((r) => (r.start.row === r.end.row ? `\n\t${file}:${r.start.row}` : `\n\t${file}:${r.start.row}-${r.end.row}`)),
  );
  return lines.length ? `\nLines not covered:${lines.join('')}` : '';
}

export default testCommand.action(async (paths, f) => {
  const code = await doTest(paths, f);
  if (code !== 0) throw new CLIError('', code);
});
