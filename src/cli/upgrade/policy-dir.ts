// The directory of the runtime-upgrade policy regolith ships (policies/runtime-upgrade in
// the package), found by walking up from this file to the package.json named regolith.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function upgradePolicyDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'regolith') return join(dir, 'policies', 'runtime-upgrade');
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
