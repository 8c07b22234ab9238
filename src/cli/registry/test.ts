// `regolith test`: its arguments, flags and help; the action is in ../commands/test.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { BENCH_FORMATS, collectList } from '../options.js';
import { lazyAction } from './lazy.js';

export function registerTest(program: Command): Command {
  return program
    .command('test')
    .description('Execute Rego test cases')
    .argument('<path...>', 'policy and test files or directories (bundles with -b)')
    .option('-v, --verbose', 'set verbose reporting mode')
    .option('-r, --run <regex>', 'run only test cases matching the regular expression')
    .option('-f, --format <format>', `set output format (${BENCH_FORMATS.join(', ')})`, 'pretty')
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
    .action(lazyAction(() => import('../commands/test.js').then((m) => m.testAction)));
}
