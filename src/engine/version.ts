// Regolith's version, the one every surface reports (the CLI's `version`, /v1/config, the
// labels of status and decision events). A build defines __REGOLITH_VERSION__ from
// package.json (tsup.config.ts); run from the sources, the nearest package.json named
// regolith above this file gives it.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

declare const __REGOLITH_VERSION__: string | undefined;
declare const __REGOLITH_BUILD__: BuildInfo | undefined;

/** Where and when the running build was made (OPA's build commit, timestamp, hostname); empty run from the sources. */
export interface BuildInfo {
  commit: string;
  timestamp: string;
  hostname: string;
}

export function buildInfo(): BuildInfo {
  if (typeof __REGOLITH_BUILD__ === 'object' && __REGOLITH_BUILD__ !== null) return __REGOLITH_BUILD__;
  return { commit: '', timestamp: '', hostname: '' };
}

let cached: string | undefined;

export function regolithVersion(): string {
  if (typeof __REGOLITH_VERSION__ === 'string') return __REGOLITH_VERSION__;
  return (cached ??= versionFromPackage());
}

function versionFromPackage(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const p = join(dir, 'package.json');
    if (existsSync(p)) {
      try {
        const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'regolith' && pkg.version) return pkg.version;
      } catch {
        // not ours; keep looking upwards
      }
    }
    dir = dirname(dir);
  }
  return 'dev';
}
