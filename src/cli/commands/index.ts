// Every subcommand, by name, with the loader of its file. A subcommand's file declares its
// arguments, flags, help and code (see ../command.ts); the program loads only the file of
// the subcommand it runs (all of them for the overview: `regolith --help`, an unknown name),
// so that start-up loads nothing a command does not use. Listed in the order --help shows.

import type { Subcommand } from '../command.js';

type Loader = () => Promise<{ default: Subcommand }>;

export const commands: Record<string, Loader> = {
  bench: () => import('./bench.js'),
  build: () => import('./build.js'),
  capabilities: () => import('./capabilities.js'),
  check: () => import('./check.js'),
  deps: () => import('./deps.js'),
  'deps-check': () => import('./deps-check.js'),
  eval: () => import('./eval.js'),
  exec: () => import('./exec.js'),
  fmt: () => import('./fmt.js'),
  inspect: () => import('./inspect.js'),
  parse: () => import('./parse.js'),
  '__playground-sandbox': () => import('./playground-sandbox.js'),
  replay: () => import('./replay.js'),
  run: () => import('./run.js'),
  sign: () => import('./sign.js'),
  test: () => import('./test.js'),
  'upgrade-check': () => import('./upgrade-check.js'),
  'upgrade-plan': () => import('./upgrade-plan.js'),
  version: () => import('./version.js'),
};
