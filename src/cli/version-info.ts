// The package version, from the nearest package.json above this file (works from src/
// and from any dist/ chunk).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function regolithVersion(): string {
  if (cached) return cached;
  cached = '0.0.0';
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const p = join(dir, 'package.json');
    if (existsSync(p)) {
      try {
        const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'regolith' && pkg.version) {
          cached = pkg.version;
          break;
        }
      } catch {
        // not ours; keep looking upwards
      }
    }
    dir = dirname(dir);
  }
  return cached;
}
