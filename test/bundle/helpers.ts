// Shared fixtures for bundle tests: temporary directories with bundle layouts and keys.

import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'regolith-bundle-'));
}

/** Writes files (relative path → contents) under a fresh directory and returns it. */
export function writeTree(files: Record<string, string>, dir = tempDir()): string {
  for (const [rel, text] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  return dir;
}

export function rsaKeys(): { priv: string; pub: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    priv: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    pub: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export function ecKeys(namedCurve = 'P-256'): { priv: string; pub: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve });
  return {
    priv: privateKey.export({ type: 'sec1', format: 'pem' }).toString(),
    pub: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export const POLICY = `package authz

default allow := false

allow if input.user == "admin"
`;
