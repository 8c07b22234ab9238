// The `regolith` command: a commander program whose subcommands come from the registry
// in registry/index.ts. Usage errors (unknown flag or command, missing argument) and
// command failures print a message on stderr and exit with code 1, as `opa` does.

import { Command, CommanderError } from 'commander';
import { commands } from './registry/index.js';
import { CLIError, examples, printError, red } from './io.js';
import { regolithVersion } from './version-info.js';

export function createProgram(): Command {
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
  for (const register of commands) {
    const sub = register(program);
    sub.exitOverride().showHelpAfterError(`(run 'regolith ${sub.name()} --help' for usage)`);
    sub.configureOutput({ outputError: (str, write) => write(red(str)) });
  }
  return program;
}

/** Runs the CLI and returns the exit code (never throws). */
export async function run(argv: string[]): Promise<number> {
  const program = createProgram();
  try {
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
