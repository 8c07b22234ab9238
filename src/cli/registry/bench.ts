// `regolith bench`: its arguments, flags and help; the action is in ../commands/bench.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { BENCH_FORMATS, collectList } from '../options.js';
import { lazyAction } from './lazy.js';

export function registerBench(program: Command): Command {
  return program
    .command('bench')
    .description('Benchmark a Rego query')
    .argument('<query>', 'the Rego query to benchmark')
    .option('-d, --data <path>', 'set policy or data file(s); repeatable', collectList, [])
    .option('-b, --bundle <path>', 'set bundle file(s) or directory path(s); repeatable', collectList, [])
    .option('-i, --input <file>', 'set input file path (JSON or YAML)')
    .option('-I, --stdin-input', 'read input document from stdin')
    .option('-f, --format <format>', `set output format (${BENCH_FORMATS.join(', ')})`, 'pretty')
    .option('--count <n>', 'number of times to repeat each benchmark', '1')
    .option('--benchtime <seconds>', 'how long each benchmark runs (seconds)', '1')
    .option('--benchmem', 'report memory allocations with benchmark results (default true)', true)
    .option('--no-benchmem', 'do not report memory allocations')
    .option('--metrics', 'report latency percentiles with benchmark results (default true)', true)
    .option('--no-metrics', 'do not report latency percentiles')
    .option('--fail', 'exits with non-zero exit code on undefined/empty result and errors (default true)', true)
    .option('--no-fail', 'benchmark even when the result is undefined')
    .option('--ignore <pattern>', 'set file and directory names to ignore during loading', collectList, [])
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release')
    .option('--v1-compatible', 'opt-in to OPA features and behaviors enabled by default in OPA v1.0 (the default)')
    .addHelpText(
      'after',
      examples([
        "regolith bench -d examples/sample -i input.json 'data.httpapi.authz.allow'",
        "regolith bench --format json --count 3 -b bundle.tar.gz 'data.authz.allow'",
      ]),
    )
    .action(lazyAction(() => import('../commands/bench.js').then((m) => m.benchAction)));
}
