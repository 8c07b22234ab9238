// The flags several subcommands share, one helper each (OPA's cmd/flags.go): a command lists
// them in its `flags` and gets the option typed (see command.ts). The text of a flag lives
// here once; a command that words it differently passes its own description.

import type { Command } from 'commander';
import { opt } from './command.js';
import { CLIError } from './io.js';
import { collect, collectList } from './options.js';

const V0 = 'opt-in to OPA features and behaviors prior to the OPA v1.0 release';
const V1 = 'opt-in to OPA features and behaviors enabled by default in OPA v1.0 (the default)';

/** `--v0-compatible`: read (and write) Rego v0. */
export const v0Compatible = (description = V0) => opt('--v0-compatible', description);

/** `--v1-compatible`: accepted for OPA's scripts; v1 is the default. */
export const v1Compatible = (description = V1) => opt('--v1-compatible', description);

/** `-f, --format`: one of `choices`. */
export const format = (choices: readonly string[], defaultValue: string, description = `set output format (${choices.join(', ')})`) =>
  opt('-f, --format <format>', description, defaultValue);

/** `--ignore`: file and directory names skipped while loading (repeatable, comma lists). */
export const ignore = (description = 'set file and directory names to ignore during loading') =>
  opt('--ignore <pattern>', description, collectList, [] as string[]);

/** `-d, --data`: policy and data files (repeatable). */
export const data = (description = 'set policy or data file(s); repeatable') => opt('-d, --data <path>', description, collectList, [] as string[]);

/** `-b, --bundle <path>`: bundle files or directories (repeatable), as eval and bench take them. */
export const bundlePaths = () => opt('-b, --bundle <path>', 'set bundle file(s) or directory path(s); repeatable', collectList, [] as string[]);

/** `-b, --bundle`: the command's path arguments are bundles, as build, check, run and test take it. */
export const bundleMode = () => opt('-b, --bundle', 'load paths as bundle files or root directories');

/** `-i, --input`: the input document's file. */
export const input = () => opt('-i, --input <file>', 'set input file path (JSON or YAML)');

/** `-I, --stdin-input`: the input document from stdin. */
export const stdinInput = () => opt('-I, --stdin-input', 'read input document from stdin');

/** `--builtins <file>`: custom built-in functions from a JavaScript module (Regolith's own; repeatable). */
export const builtins = () => opt('--builtins <file>', 'load custom built-in functions from a JavaScript module (docs/custom-builtins.md); repeatable', collect, [] as string[]);

/** `--capabilities <file-or-version>`: the built-ins policies may call (read with capabilities-flag.ts). */
export const capabilities = () => opt('--capabilities <file-or-version>', 'set capabilities version or capabilities.json file path');

/** `-s, --schema <path>`: a JSON Schema for input, or a directory with input.json (read with schema-flag.ts). */
export const schema = () => opt('-s, --schema <path>', 'set schema file path or directory path (input.json in a directory is the schema of input)');

/** `-S, --strict`: the compiler's strict mode. */
export const strict = () => opt('-S, --strict', 'enable compiler strict mode');

/** `--explain`: explanations of the evaluation (notes, fails, full, debug). */
export const explain = (modes: string) => opt('--explain <mode>', `enable query explanations (${modes})`);

/** `--benchmem` / `--no-benchmem` (on by default). */
export const benchmem = (negated = 'do not report memory allocations') => [
  opt('--benchmem', 'report memory allocations with benchmark results (default true)', true),
  opt('--no-benchmem', negated),
] as const;

/**
 * A flag OPA has that Regolith cannot honour (a value of it, or at all): declared, so that a
 * script using it gets one clear error naming the alternative, never "unknown option".
 * `why` returns the error for a value (undefined: the value is fine, e.g. `-t rego`).
 */
export function refused<const S extends string>(flags: S, description: string, why: (value: string | true) => string | undefined) {
  const flag = opt(flags, description);
  const name = /--([\w-]+)/.exec(flags)![1]!;
  return {
    ...flag,
    apply(cmd: Command) {
      flag.apply(cmd);
      cmd.on(`option:${name}`, (value: string | undefined) => {
        const message = why(value ?? true);
        if (message !== undefined) throw new CLIError(message);
      });
    },
  };
}

/** `--log-timestamp-format`: Go time layouts for log times (run, exec); Regolith writes RFC 3339. */
export const logTimestampFormat = () =>
  refused('--log-timestamp-format <layout>', 'set log timestamp format (not supported: log times are RFC 3339)', () =>
    'the --log-timestamp-format flag is not supported: Regolith writes log times in RFC 3339 (the default of opa)');
