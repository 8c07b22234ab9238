// `regolith fmt`: OPA's canonical formatting of Rego files (`opa fmt`). Prints the
// formatted text, or rewrites files (-w), lists files that would change (-l), prints a
// unified diff (-d); --fail makes a change an error. Directories are walked for .rego
// files; with no path, stdin is formatted. --v0-compatible reads and writes v0 syntax;
// --v0-v1 (OPA's old name --rego-v1 too) writes modules that parse as v0 and as v1: v1
// keywords with `import rego.v1` (which covers the future.keywords imports it replaces),
// reading v0 (or v1 with --v1-compatible). With --drop-v0-imports it writes plain v1.

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RegoParseError, formatModule, parseModule, unifiedDiff, type Import, type Module } from '../../engine/syntax.js';
import { CLIError } from '../io.js';
import { prettyErrors } from '../rego-errors.js';
import { command, opt, type OptionsOf } from '../command.js';
import { v0Compatible, v1Compatible } from '../flags.js';

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
    opt('--v0-v1', 'format module(s) to be compatible with both Rego v0 and v1 (v0 in; v1 in with --v1-compatible)'),
    opt('--rego-v1', 'the same as --v0-v1 (its name before OPA 1.0)'),
    opt('--drop-v0-imports', "drop v0 imports from the formatted code, such as 'rego.v1' and 'future.keywords'"),
    opt('--check-result [bool]', 'assert that the formatted code is valid and can be successfully parsed (default true; --check-result=false turns it off)'),
    opt('--no-check-result', 'do not assert that the formatted code is valid and can be parsed'),
    opt('--capabilities <file-or-version>', 'set capabilities version or capabilities.json file path (accepted: the formatter reads every keyword and built-in)'),
  ],
  examples: ['regolith fmt policy.rego', 'regolith fmt -w policies/', 'regolith fmt --list --fail .', 'regolith fmt -d policy.rego', 'regolith fmt --v0-v1 -w legacy/', 'regolith fmt --v0-v1 --drop-v0-imports -w legacy/   # v0 to plain v1', 'cat policy.rego | regolith fmt'],
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

const isRegoV1 = (i: Import) => {
  const [a, b, ...rest] = i.path.value;
  return rest.length === 0 && a?.type === 'var' && a.value === 'rego' && b?.type === 'string' && b.value === 'v1';
};

/** The module with `import rego.v1` (beside its first import, or below the package), read as v1 so no import is dropped. */
function withRegoV1Import(m: Module): Module {
  if (m.imports.some(isRegoV1)) return { ...m, regoVersion: 'v1' };
  const file = m.package.location?.file ?? '';
  const location = m.imports[0]?.location ?? { file, row: (m.package.location?.row ?? 0) + 1, col: 1, text: 'import rego.v1' };
  const path: Import['path'] = { type: 'ref', value: [{ type: 'var', value: 'rego' }, { type: 'string', value: 'v1' }] };
  return { ...m, regoVersion: 'v1', imports: [{ path, location }, ...m.imports] };
}

/** --check-result: on unless --no-check-result or --check-result=false. */
function checkResult(opts: FmtOptions): boolean {
  // both spellings land on one key: a boolean (--no-check-result) or the string of --check-result=<bool>
  const v = opts.checkResult as unknown;
  return v !== false && v !== 'false';
}

/** The formatted text of one source, or an error message. */
function format(text: string, file: string, opts: FmtOptions): string {
  const compat = !!(opts.v0V1 || opts.regoV1);
  // as OPA: --v0-compatible wins over --v1-compatible; --v0-v1 reads v0 unless --v1-compatible
  const parseVersion = opts.v0Compatible || (compat && !opts.v1Compatible) ? 'v0' : 'v1';
  const outVersion = compat ? 'v1' : parseVersion;
  let module = parseModule(text, { filename: file, regoVersion: parseVersion });
  if (compat && !opts.dropV0Imports) module = withRegoV1Import(module);
  const formatted = formatModule(module, { regoVersion: outVersion, dropV0Imports: opts.dropV0Imports });
  if (checkResult(opts)) {
    try {
      parseModule(formatted, { filename: file, regoVersion: outVersion });
      // compatible with both: the result must parse as v0 too
      if (compat && !opts.dropV0Imports) parseModule(formatted, { filename: file, regoVersion: 'v0' });
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
    // as opa fmt: a file it cannot format exits 2, like a diff under --fail
    fail(`failed to format Rego source file: ${errorText(e)}`, FMT_ERROR);
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
  const cr = opts.checkResult as unknown;
  if (typeof cr === 'string' && !['true', 'false'].includes(cr)) {
    throw new CLIError(`invalid argument "${cr}" for "--check-result" flag: strconv.ParseBool: parsing "${cr}": invalid syntax`);
  }
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
