// Output conventions shared by every subcommand: machine formats go to stdout, messages
// to stderr, colour only when the stream is a terminal (and NO_COLOR is unset), and a
// failing command ends with exit code 1 as `opa` does.

// The runtime throws the same class: a command's failure and a server's failure to start end alike.
export { ExitError as CLIError } from '../runtime/errors.js';

function colourOn(stream: NodeJS.WriteStream): boolean {
  return !!stream.isTTY && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
}

export function red(text: string, stream: NodeJS.WriteStream = process.stderr): string {
  return colourOn(stream) ? `\x1b[31m${text}\x1b[0m` : text;
}

export function bold(text: string, stream: NodeJS.WriteStream = process.stdout): string {
  return colourOn(stream) ? `\x1b[1m${text}\x1b[0m` : text;
}

export function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

/** Prints `error: <message>` (or the preformatted report) on stderr. */
export function printError(message: string): void {
  process.stderr.write(`${red('error:')} ${message}\n`);
}

/** Formats a list of usage examples for `--help`. */
export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => (l === '' ? '' : `  ${l}`)).join('\n')}\n`;
}
