// The bundle signature verification flags `opa run` and `opa build` share
// (--verification-key, --verification-key-id, --signing-alg, --scope,
// --exclude-files-verify), turned into the bundle loader's VerificationConfig.

import { existsSync, readFileSync, statSync } from 'node:fs';
import type { VerificationConfig } from '../bundle/index.js';
import { group, opt, type Options } from './command.js';
import { collectList } from './options.js';

const signingAlg = () => opt('--signing-alg <alg>', 'name of the signing algorithm', 'RS256');

const verificationFlags = [
  opt('--verification-key <key>', 'set the secret (HMAC) or path of the PEM file containing the public key (RSA and ECDSA)'),
  opt('--verification-key-id <id>', 'name assigned to the verification key used for bundle verification', 'default'),
  opt('--scope <scope>', 'scope to use for bundle signature verification'),
  opt('--exclude-files-verify <glob>', 'set file names to exclude during bundle verification', collectList, [] as string[]),
] as const;

export type VerificationFlags = Options<[...typeof verificationFlags, ReturnType<typeof signingAlg>]>;

/** The verification flags, with --signing-alg (build declares its own, for signing, before them). */
export const verification = () => group(...verificationFlags, signingAlg());

/** The verification flags without --signing-alg. */
export const verificationWithoutSigningAlg = () => group(...verificationFlags);

export { signingAlg };

/** Key material given on the command line: a file's content when one exists at that path. */
export function keyMaterial(value: string): string {
  if (!value.startsWith('-----BEGIN') && existsSync(value) && statSync(value).isFile()) return readFileSync(value, 'utf8');
  return value;
}

/** The verification settings, or undefined when no key was given (signatures then go unchecked). */
export function verificationConfig(f: VerificationFlags): VerificationConfig | undefined {
  if (!f.verificationKey) return undefined;
  return {
    keys: { [f.verificationKeyId]: { key: keyMaterial(f.verificationKey), algorithm: f.signingAlg, scope: f.scope } },
    keyid: f.verificationKeyId,
    scope: f.scope,
    exclude_files: f.excludeFilesVerify,
  };
}
