// An error that ends `regolith run` (or any subcommand) with a message on stderr and an exit
// code, as `opa` ends: the CLI prints it (src/cli/program.ts), under the name CLIError.

export class ExitError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CLIError';
  }
}
