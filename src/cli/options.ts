// Option parsers shared by subcommands.

/** Collects a repeatable, comma-separated option (`--ignore a --ignore b,c`). */
export function collectList(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').filter((s) => s !== '')];
}
