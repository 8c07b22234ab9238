// Option parsers and choice lists shared by subcommands. The registry (registry/*.ts)
// declares flags with these before any command's code is loaded, so this file imports
// nothing.

/** Collects a repeatable, comma-separated option (`--ignore a --ignore b,c`). */
export function collectList(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').filter((s) => s !== '')];
}

/** Collects a repeatable option as given, commas included (`--set a=1,b=2`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `regolith eval --format`. */
export const EVAL_FORMATS = ['json', 'values', 'bindings', 'pretty', 'source', 'raw', 'discard'] as const;

/** `regolith test --format` and `regolith bench --format`. */
export const BENCH_FORMATS = ['pretty', 'json', 'gobench'];

/** `regolith run --log-level` and `--log-format`. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'];
export const LOG_FORMATS = ['json', 'json-pretty', 'text'];
