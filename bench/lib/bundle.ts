// Compiles one bench entry (and the src/ it imports) into a single ES module with esbuild,
// as tsup compiles the product: no names kept on functions, target node20, packages left
// external. Code loaded through tsx instead carries esbuild's keepNames wrapper on every
// function it creates (a defineProperty per closure, measurably slower on hot paths) and
// is collapsed onto one line in CPU profiles.

import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Inside node_modules so that the bundle resolves the project's packages (and git ignores it). */
export const BUNDLE_DIR = join(ROOT, 'node_modules/.cache/regolith-bench');

/** Bundles bench/<entry> (e.g. "http-server.ts") and returns the .mjs file's path. */
export function bundle(entry: string): string {
  mkdirSync(BUNDLE_DIR, { recursive: true });
  const file = join(BUNDLE_DIR, entry.replace(/\.ts$/, '.mjs'));
  execFileSync(
    join(ROOT, 'node_modules/.bin/esbuild'),
    [join(ROOT, 'bench', entry), '--bundle', '--platform=node', '--format=esm', '--target=node20', '--packages=external', '--sourcemap', '--log-level=warning', `--outfile=${file}`],
    { stdio: 'inherit' },
  );
  return file;
}
