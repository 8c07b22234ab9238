// The bundle signature verification flags `opa run` and `opa build` share
// (--verification-key, --verification-key-id, --signing-alg, --scope,
// --exclude-files-verify), turned into the bundle loader's VerificationConfig.

import { existsSync, readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import type { VerificationConfig } from '../bundle/index.js';
import { collectList } from './options.js';

export interface VerificationFlags {
  verificationKey?: string;
  verificationKeyId: string;
  signingAlg: string;
  scope?: string;
  excludeFilesVerify: string[];
}

/** Adds the verification flags (--signing-alg only when the command has not got it already). */
export function addVerificationOptions(cmd: Command, withSigningAlg = true): Command {
  cmd
    .option('--verification-key <key>', 'set the secret (HMAC) or path of the PEM file containing the public key (RSA and ECDSA)')
    .option('--verification-key-id <id>', 'name assigned to the verification key used for bundle verification', 'default')
    .option('--scope <scope>', 'scope to use for bundle signature verification')
    .option('--exclude-files-verify <glob>', 'set file names to exclude during bundle verification', collectList, []);
  if (withSigningAlg) cmd.option('--signing-alg <alg>', 'name of the signing algorithm', 'RS256');
  return cmd;
}

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
