// `regolith check`: its arguments, flags and help; the action is in ../commands/check.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { collectList } from '../options.js';
import { lazyAction } from './lazy.js';

export function registerCheck(program: Command): Command {
  return program
    .command('check')
    .description('Check Rego source files')
    .argument('<path...>', 'Rego files or directories (bundles with -b)')
    .option('-f, --format <format>', 'set output format (pretty, json)', 'pretty')
    .option('-b, --bundle', 'load paths as bundle files or root directories')
    .option('-S, --strict', 'enable compiler strict mode')
    .option('-m, --max-errors <n>', 'set the number of errors to allow before compilation fails early (0 for no limit)', '10')
    .option('--ignore <pattern>', 'set file and directory names to ignore during loading', collectList, [])
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release')
    .option('--v1-compatible', 'opt-in to OPA features and behaviors enabled by default in OPA v1.0 (the default)')
    .addHelpText(
      'after',
      examples(['regolith check policies/', 'regolith check --strict --format json policy.rego', 'regolith check -b bundle.tar.gz']),
    )
    .action(lazyAction(() => import('../commands/check.js').then((m) => m.checkAction)));
}
