// `regolith fmt`: OPA's canonical formatting of Rego files (`opa fmt`). Prints the
// formatted text, or rewrites files (-w), lists files that would change (-l), prints a
// unified diff (-d); --fail makes a change an error. Directories are walked for .rego
// files; with no path, stdin is formatted. --v0-compatible reads and writes v0 syntax,
// --v0-v1 reads v0 and writes v1 (adding `if`/`contains`, dropping v0 imports).

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RegoParseError, formatModule, parseModule, unifiedDiff } from '../../engine/syntax.js';
import { CLIError } from '../io.js';
import { prettyErrors } from '../rego-errors.js';
import { command, opt, type OptionsOf } from '../command.js';
import { refused, v0Compatible, v1Compatible } from '../flags.js';

const fmtCommand = command({
  name: 'fmt',
  description: 'Format Rego source files',
  args: [['[path...]', 'Rego files or directories (stdin when none)']],
  flags: [
    opt('-w, --write', 'overwrite the original source file'),
    opt('-l, --list', 'list all files who would change when formatted'),
    opt('-d, --diff', 'only display a diff of the changes'),
    opt('--fail', 'non zero exit code on reformat'),
    v0Compatible('opt-in to OPA features and behaviors prior to the OPA v1.0 release (read and write v0 syntax)'),
    v1Compatible(),
    opt('--v0-v1', 'format v0 modules (read with v0 syntax) as Rego v1, dropping rego.v1 and future.keywords imports'),
    opt('--drop-v0-imports', "drop v0 imports from the formatted code, such as 'rego.v1' and 'future.keywords'"),
    opt('--no-check-result', 'do not assert that the formatted code is valid and can be parsed'),
    refused('--rego-v1', 'format module(s) to be compatible with both Rego v0 and v1 (not supported yet)', () =>
      '--rego-v1 is not supported yet: format as Rego v1 with --v0-v1 (v0 modules in) or as v0 with --v0-compatible'),
  ],
  examples: ['regolith fmt policy.rego', 'regolith fmt -w policies/', 'regolith fmt --list --fail .', 'regolith fmt -d policy.rego', 'regolith fmt --v0-v1 -w legacy/', 'cat policy.rego | regolith fmt'],
});

type FmtOptions = OptionsOf<typeof fmtCommand>;

/** Exit code of `opa fmt` for a file it could not handle or that would change. */
const FMT_ERROR = 2;

function fail(message: string, code = 1): never {
  process.stderr.write(message + '\n');
  throw new CLIError('', code);
}

function errorText(e: unknown): string {
  return e instanceof RegoParseError ? prettyErrors(e.errors) : String((e as Error)?.message ?? e);
}

/** The formatted text of one source, or an error message. */
function format(text: string, file: string, opts: FmtOptions): string {
  const parseVersion = opts.v0Compatible || opts.v0V1 ? 'v0' : 'v1';
  const outVersion = opts.v0V1 ? 'v1' : parseVersion;
  const module = parseModule(text, { filename: file, regoVersion: parseVersion });
  const formatted = formatModule(module, { regoVersion: outVersion, dropV0Imports: opts.dropV0Imports });
  if (opts.checkResult) {
    try {
      parseModule(formatted, { filename: file, regoVersion: outVersion });
    } catch (e) {
      throw new Error(
        `${file} was successfully formatted, but the result is invalid: ${errorText(e)}\n\nTo inspect the formatted Rego, you can turn off this check with --check-result=false.`,
      );
    }
  }
  return formatted;
}

function regoFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    fail(`lstat ${path}: no such file or directory`);
  }
  if (!st.isDirectory()) return path.endsWith('.rego') ? [path] : [];
  const out: string[] = [];
  for (const name of readdirSync(path).sort()) out.push(...regoFiles(join(path, name)));
  return out;
}

function formatFile(file: string, opts: FmtOptions): void {
  const text = readFileSync(file, 'utf8');
  let formatted: string;
  try {
    formatted = format(text, file, opts);
  } catch (e) {
    fail(`failed to format Rego source file: ${errorText(e)}`);
  }
  const changed = formatted !== text;
  if (opts.list) {
    if (!changed) return;
    process.stdout.write(file + '\n');
    if (opts.fail) fail('unexpected diff', FMT_ERROR);
    return;
  }
  if (opts.diff) {
    if (!changed) return;
    process.stdout.write(unifiedDiff(text, formatted, `a/${file}`, `b/${file}`));
    if (opts.fail) fail('unexpected diff', FMT_ERROR);
    return;
  }
  if (opts.fail && changed) fail('unexpected diff', FMT_ERROR);
  if (opts.write) {
    if (changed) writeFileSync(file, formatted);
    return;
  }
  process.stdout.write(formatted);
}

function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

export default fmtCommand.action((paths, opts) => {
  if (paths.length === 0) {
    try {
      process.stdout.write(format(readStdin(), 'stdin', opts));
    } catch (e) {
      fail(errorText(e));
    }
    return;
  }
  for (const p of paths) for (const f of regoFiles(p)) formatFile(f, opts);
});
