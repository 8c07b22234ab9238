// `regolith version`: its arguments, flags and help; the action is in ../commands/version.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { lazyAction } from './lazy.js';

export function registerVersion(program: Command): Command {
  return program
    .command('version')
    .description('Print the version of regolith')
    .addHelpText('after', examples(['regolith version']))
    .action(lazyAction(() => import('../commands/version.js').then((m) => m.versionAction)));
}
