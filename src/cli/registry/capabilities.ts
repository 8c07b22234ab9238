// `regolith capabilities`: its arguments, flags and help; the action is in ../commands/capabilities.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { lazyAction } from './lazy.js';

export function registerCapabilities(program: Command): Command {
  return program
    .command('capabilities')
    .description('Print the capabilities of regolith')
    .option('--current', 'print current capabilities')
    .option('--version <version>', 'print capabilities of a specific version')
    .option('--file <path>', 'print capabilities defined by a file')
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release')
    .addHelpText(
      'after',
      examples([
        'regolith capabilities                 # list the capabilities versions known',
        'regolith capabilities --current       # the built-ins and features of this build',
        'regolith capabilities --file caps.json',
      ]),
    )
    .action(lazyAction(() => import('../commands/capabilities.js').then((m) => m.capabilitiesAction)));
}
