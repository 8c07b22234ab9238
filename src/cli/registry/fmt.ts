// `regolith fmt`: its arguments, flags and help; the action is in ../commands/fmt.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { lazyAction } from './lazy.js';

export function registerFmt(program: Command): Command {
  return program
    .command('fmt')
    .description('Format Rego source files')
    .argument('[path...]', 'Rego files or directories (stdin when none)')
    .option('-w, --write', 'overwrite the original source file')
    .option('-l, --list', 'list all files who would change when formatted')
    .option('-d, --diff', 'only display a diff of the changes')
    .option('--fail', 'non zero exit code on reformat')
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release (read and write v0 syntax)')
    .option('--v1-compatible', 'opt-in to OPA features and behaviors enabled by default in OPA v1.0 (the default)')
    .option('--v0-v1', 'format v0 modules (read with v0 syntax) as Rego v1, dropping rego.v1 and future.keywords imports')
    .option('--drop-v0-imports', "drop v0 imports from the formatted code, such as 'rego.v1' and 'future.keywords'")
    .option('--no-check-result', 'do not assert that the formatted code is valid and can be parsed')
    .addHelpText(
      'after',
      examples(['regolith fmt policy.rego', 'regolith fmt -w policies/', 'regolith fmt --list --fail .', 'regolith fmt -d policy.rego', 'regolith fmt --v0-v1 -w legacy/', 'cat policy.rego | regolith fmt']),
    )
    .action(lazyAction(() => import('../commands/fmt.js').then((m) => m.fmtAction)));
}
