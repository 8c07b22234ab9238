// `regolith inspect`: its arguments, flags and help; the action is in ../commands/inspect.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { lazyAction } from './lazy.js';

export function registerInspect(program: Command): Command {
  return program
    .command('inspect')
    .description('Inspect a bundle')
    .argument('<path>', 'a bundle directory or .tar.gz')
    .option('-f, --format <format>', 'set output format (pretty, json)', 'pretty')
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release')
    .addHelpText(
      'after',
      examples(['regolith inspect bundle.tar.gz', 'regolith inspect --format json policies/']),
    )
    .action(lazyAction(() => import('../commands/inspect.js').then((m) => m.inspectAction)));
}
