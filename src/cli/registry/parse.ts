// `regolith parse`: its arguments, flags and help; the action is in ../commands/parse.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { lazyAction } from './lazy.js';

export function registerParse(program: Command): Command {
  return program
    .command('parse')
    .description('Parse Rego source file')
    .argument('<path>', 'a .rego file')
    .option('-f, --format <format>', 'set output format (pretty, json)', 'pretty')
    .option('--json-include <items>', 'include or exclude optional elements in JSON output: "locations"', '')
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release')
    .option('--v1-compatible', 'opt-in to OPA features and behaviors enabled by default in OPA v1.0 (the default)')
    .addHelpText(
      'after',
      examples(['regolith parse policy.rego', 'regolith parse --format json policy.rego', 'regolith parse --format json --json-include locations policy.rego']),
    )
    .action(lazyAction(() => import('../commands/parse.js').then((m) => m.parseAction)));
}
