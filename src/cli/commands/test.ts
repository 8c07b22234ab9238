// `regolith test`: runs the test_* rules found in policy files and directories (or bundles
// with -b) and reports like `opa test`. Exit codes as opa: 0 when every test passes, 2
// when a test fails, errors or is skipped (unless -z), 1 when loading or compiling fails.

import type { Command } from 'commander';
import { parseDuration } from '../duration.js';
import { prettyErrorText } from '../eval-output.js';
import { CLIError, examples } from '../io.js';
import { loadPaths } from '../load-paths.js';
import { collectList } from '../options.js';
import { buildPolicySet, toErrorDetails } from '../policy-set.js';
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

const FORMATS = ['pretty', 'json', 'gobench'];
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

export function registerTest(program: Command): Command {
  return program
    .command('test')
    .description('Execute Rego test cases')
    .argument('<path...>', 'policy and test files or directories (bundles with -b)')
    .option('-v, --verbose', 'set verbose reporting mode')
    .option('-r, --run <regex>', 'run only test cases matching the regular expression')
    .option('-f, --format <format>', `set output format (${FORMATS.join(', ')})`, 'pretty')
    .option('-c, --coverage', 'report coverage (overrides debug tracing)')
    .option('--threshold <percent>', 'set coverage threshold and exit with non-zero status if coverage is less than threshold %', '0')
    .option('--timeout <duration>', 'set test timeout (default 5s, 30s when benchmarking)', '0')
    .option('--bench', 'benchmark the unit tests')
    .option('--benchmem', 'report memory allocations with benchmark results (default true)', true)
    .option('--no-benchmem', 'do not report memory allocations with benchmark results')
    .option('-z, --exit-zero-on-skipped', 'skipped tests return status 0')
    .option('-b, --bundle', 'load paths as bundle files or root directories')
    .option('--ignore <pattern>', 'set file and directory names to ignore during loading', collectList, [])
    .option('--explain <mode>', 'enable query explanations (fails, full, notes, debug)')
    .option('--fail-on-empty', 'exit with non-zero status if no tests were run')
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release')
    .option('--v1-compatible', 'opt-in to OPA features and behaviors enabled by default in OPA v1.0 (the default)')
    .addHelpText(
      'after',
      examples([
        'regolith test policies/',
        'regolith test -v --run "authz" policies/',
        'regolith test --format json policy.rego policy_test.rego',
        'regolith test --v0-compatible legacy/',
        'regolith test --bench policies/',
      ]),
    )
    .action(async (paths: string[], f: TestFlags) => {
      const code = await doTest(paths, f);
      if (code !== 0) throw new CLIError('', code);
    });
}
