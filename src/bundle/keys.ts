// Turning configured key material into keys jose can use: PEM public keys and
// certificates (verify), PEM private keys (sign), raw secrets for HS* algorithms.

import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { BundleError } from './types.js';

export const DEFAULT_SIGNING_ALG = 'RS256';

const SUPPORTED = new Set([
  'RS256', 'RS384', 'RS512',
  'PS256', 'PS384', 'PS512',
  'ES256', 'ES384', 'ES512',
  'HS256', 'HS384', 'HS512',
]);

export function checkAlgorithm(alg: string): void {
  if (!SUPPORTED.has(alg)) throw new BundleError(`unsupported signing algorithm: ${alg}`);
}

export function isHMAC(alg: string): boolean {
  return alg.startsWith('HS');
}

/** Key for verifying: a KeyObject for asymmetric algorithms, the secret bytes for HS*. */
export function verificationKey(material: string, alg: string): KeyObject | Uint8Array {
  checkAlgorithm(alg);
  if (isHMAC(alg)) return new TextEncoder().encode(material);
  const pem = material.trim();
  try {
    if (pem.includes('-----BEGIN CERTIFICATE-----')) return new X509Certificate(pem).publicKey;
    // A private key also verifies (OPA accepts one here too).
    if (/-----BEGIN (RSA |EC )?PRIVATE KEY-----/.test(pem)) return createPublicKey(createPrivateKey(pem));
    return createPublicKey(pem);
  } catch (e) {
    throw new BundleError(`failed to parse verification key for ${alg}: ${(e as Error).message}`);
  }
}

/**
 * The signing key. Like OPA, `key` is PEM text when it starts with "-----BEGIN", else a
 * path to a file when one exists there, else the key material itself (an HMAC secret).
 */
export function signingKey(key: string, alg: string): KeyObject | Uint8Array {
  checkAlgorithm(alg);
  let material = key;
  if (!key.startsWith('-----BEGIN') && key !== '' && existsSync(key) && statSync(key).isFile()) {
    material = readFileSync(key, 'utf8');
  }
  if (isHMAC(alg)) return new TextEncoder().encode(material);
  if (!material.includes('-----BEGIN')) throw new BundleError('failed to parse PEM block containing the key');
  try {
    return createPrivateKey(material);
  } catch (e) {
    throw new BundleError(`failed to parse signing key: ${(e as Error).message}`);
  }
}
