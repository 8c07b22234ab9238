// The `regolith` command: a commander program whose subcommands come from the list in
// commands/index.ts (only the one named on the command line is loaded). Usage errors (unknown flag or command, missing argument) and
// command failures print a message on stderr and exit with code 1, as `opa` does.

import { Command, CommanderError } from 'commander';
import { commands } from './commands/index.js';
import type { Subcommand } from './command.js';
import { CLIError, examples, printError, red } from './io.js';
import { regolithVersion } from './version-info.js';

/**
 * The subcommands to declare for these arguments: the one named (also after `help`), none
 * for a lone `--version`, all of them otherwise (the overview, or suggestions for a typo).
 */
async function subcommandsFor(args: string[]): Promise<Subcommand[]> {
  const positional = args.filter((a) => !a.startsWith('-'));
  const name = positional[0] === 'help' && positional.length > 1 ? positional[1] : positional[0];
  if (name !== undefined && Object.hasOwn(commands, name)) return [(await commands[name]!()).default];
  if (name === undefined && args.length > 0 && args.every((a) => a === '--version')) return [];
  return Promise.all(Object.values(commands).map(async (load) => (await load()).default));
}

export async function createProgram(args: string[]): Promise<Command> {
  const program = new Command('regolith')
    .description('Regolith: a policy decision server with an embedded Rego evaluator, compatible with Open Policy Agent')
    .version(regolithVersion(), '--version', 'print the version of regolith')
    // Program options only before the subcommand: `capabilities --version v1.20.0` is the
    // subcommand's own flag, not the program's --version.
    .enablePositionalOptions()
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ outputError: (str, write) => write(red(str)) })
    .exitOverride()
    .addHelpText(
      'after',
      examples([
        'regolith build -b policies/ -o bundle.tar.gz',
        'regolith inspect bundle.tar.gz',
        'regolith capabilities --current',
      ]),
    );
  for (const { register } of await subcommandsFor(args)) {
    const sub = register(program);
    sub.exitOverride().showHelpAfterError(`(run 'regolith ${sub.name()} --help' for usage)`);
    sub.configureOutput({ outputError: (str, write) => write(red(str)) });
  }
  return program;
}

/** Runs the CLI and returns the exit code (never throws). */
export async function run(argv: string[]): Promise<number> {
  try {
    const program = await createProgram(argv.slice(2));
    await program.parseAsync(argv);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and --version end here with code 0; usage errors were already printed.
      return e.exitCode === 0 ? 0 : 1;
    }
    if (e instanceof CLIError) {
      if (e.message) printError(e.message);
      return e.exitCode;
    }
    printError(e instanceof Error ? e.message : String(e));
    return 1;
  }
}
