// The policies regolith ships (policies/<name> in the package: supply-chain, runtime-upgrade,
// ...), found by walking up from this file to the package.json named regolith — the same
// from src/ (tests) and from dist/ (the built command).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory of the shipped policy `name`, or undefined when the package is not found. */
export function shippedPolicyDir(name: string): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'regolith') return join(dir, 'policies', name);
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
