// A subcommand's action loaded on first use: the registry declares every subcommand's
// arguments, flags and help eagerly (commander needs them to parse and for --help), while
// the code that does the work, and the libraries it needs, is imported only when that
// subcommand runs. `regolith version` thus never loads the evaluator or the server.

export function lazyAction<A extends unknown[]>(load: () => Promise<(...args: A) => unknown>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const action = await load();
    await action(...args);
  };
}
