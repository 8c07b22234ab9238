// Where the tests find OPA's own files: its YAML conformance cases (v1/ and v0-legacy/) and
// its capabilities list (opa-capabilities-v1.20.2.json, in that folder or beside it). They
// are OPA's, not the project's, so the repository does not hold them; one setting says
// where they are:
//
//   REGOLITH_OPA_CONFORMANCE=<folder with v1/ and v0-legacy/>   (default: ../shared/opa-conformance
//                                                                 beside the checkout, what CI provides)
//
// A relative path is taken from the repository's root. When the folder is not there and the
// variable is not set, the tests that need it skip, each file with one line saying what it
// skipped and how to run it. When the variable is set, a missing folder is an error: whoever
// set it meant the tests to run.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

export const OPA_CONFORMANCE_ENV = 'REGOLITH_OPA_CONFORMANCE';
const CAPABILITIES_FILE = 'opa-capabilities-v1.20.2.json';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const configured = process.env[OPA_CONFORMANCE_ENV];
const dir = resolve(repoRoot, configured || '../shared/opa-conformance');

function findCapabilities(): string | undefined {
  return [join(dir, CAPABILITIES_FILE), join(dir, '..', CAPABILITIES_FILE)].find((p) => existsSync(p));
}

const capabilitiesPath = existsSync(join(dir, 'v1')) ? findCapabilities() : undefined;
if (configured && !capabilitiesPath) {
  throw new Error(
    `${OPA_CONFORMANCE_ENV}=${configured}: expected OPA's conformance cases in ${join(dir, 'v1')} and ${CAPABILITIES_FILE} in ${dir} or its parent`,
  );
}

/** The folder of OPA's conformance cases, or undefined when it is not on this machine. */
export const OPA_CONFORMANCE_DIR: string | undefined = capabilitiesPath ? dir : undefined;

/**
 * True when OPA's files are here. Otherwise registers one skipped test named after `what`
 * (so the file counts as skipped, not empty) and prints one line saying how to run it.
 */
export function hasOpaConformance(what: string): boolean {
  if (OPA_CONFORMANCE_DIR) return true;
  const line = `skipped ${what}: OPA's conformance cases are not in ${dir}; set ${OPA_CONFORMANCE_ENV}=<folder with OPA's v1/ cases and ${CAPABILITIES_FILE}> to run it`;
  describe.skip(line, () => it('needs OPA\'s conformance files', () => {}));
  console.warn(line);
  return false;
}

/** describe(name, fn) when OPA's files are here; otherwise the skip of hasOpaConformance(what), and fn never runs. */
export function describeWithOpa(what: string, name: string, fn: () => void): void {
  if (hasOpaConformance(what)) describe(name, fn);
}

/** A built-in as OPA's capabilities list declares it. */
export interface OpaCapabilityBuiltin {
  name: string;
  decl: unknown;
  infix?: string;
  relation?: boolean;
  deprecated?: boolean;
  nondeterministic?: boolean;
}

/** OPA v1.20.2's capabilities list; call it only after hasOpaConformance() said true. */
export function opaCapabilities(): { builtins: OpaCapabilityBuiltin[] } {
  if (!capabilitiesPath) throw new Error(`OPA's capabilities list is not on this machine (see ${OPA_CONFORMANCE_ENV})`);
  return JSON.parse(readFileSync(capabilitiesPath, 'utf8')) as { builtins: OpaCapabilityBuiltin[] };
}
