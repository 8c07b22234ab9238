// Checking `.signatures.json` against configured keys, then every bundle file against
// the digests in the signed payload, with OPA's rules and messages: exactly one JWT; the
// key id comes from config, else the JWT `kid`, else the deprecated `keyid` claim; scope
// must match; every file must be listed (unless excluded) and every listed file present.

import { hashBundleFile, isSupportedHashAlgorithm } from './hash.js';
import { DEFAULT_SIGNING_ALG, verificationKey } from './keys.js';
import { SIGNATURES_FILE } from './sign.js';
import { BundleError, type FileInfo, type SignaturePayload, type SignaturesConfig, type VerificationConfig } from './types.js';

function decodePayload(token: string): SignaturePayload {
  const part = token.split('.')[1];
  if (part === undefined) throw new BundleError('failed to parse JWT: invalid compact serialization');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new BundleError('failed to parse JWT payload');
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as SignaturePayload).files)) {
    throw new BundleError('invalid JWT payload: missing files');
  }
  return parsed as SignaturePayload;
}

/** Verifies the JWT and returns the files it lists, by name. */
export async function verifyBundleSignature(
  sc: SignaturesConfig,
  config: VerificationConfig,
): Promise<Map<string, FileInfo>> {
  const tokens = sc.signatures ?? [];
  if (tokens.length === 0) throw new BundleError(`${SIGNATURES_FILE}: missing JWT (expected exactly one)`);
  if (tokens.length > 1) throw new BundleError(`${SIGNATURES_FILE}: multiple JWTs not supported (expected exactly one)`);
  const token = tokens[0]!;

  // jose is loaded when the first signed bundle is verified.
  const { compactVerify, decodeProtectedHeader } = await import('jose');
  let header: { kid?: unknown };
  try {
    header = decodeProtectedHeader(token);
  } catch (e) {
    throw new BundleError(`failed to parse JWT headers: ${(e as Error).message}`);
  }
  const payload = decodePayload(token);

  let keyId = config.keyid ?? '';
  if (!keyId && typeof header.kid === 'string') keyId = header.kid;
  if (!keyId && typeof payload.keyid === 'string') keyId = payload.keyid;
  if (!keyId) throw new BundleError('verification key ID is empty');
  const kc = config.keys[keyId];
  if (!kc) throw new BundleError(`verification key corresponding to ID ${keyId} not found`);

  const alg = kc.algorithm ?? DEFAULT_SIGNING_ALG;
  const key = verificationKey(kc.key, alg);
  try {
    await compactVerify(token, key, { algorithms: [alg] });
  } catch {
    throw new BundleError('failed to verify bundle signature: could not verify message using any of the signatures or keys');
  }

  const scope = config.scope || kc.scope || '';
  if ((payload.scope ?? '') !== scope) throw new BundleError('scope mismatch');

  const files = new Map<string, FileInfo>();
  for (const f of payload.files) files.set(f.name, f);
  return files;
}

function excluded(path: string, patterns: string[] | undefined): boolean {
  return (patterns ?? []).some((p) => globMatch(p, path));
}

/** Go's filepath.Match: `*` and `?` never cross a `/`, character classes allowed. */
export function globMatch(pattern: string, path: string): boolean {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) return false;
      let cls = pattern.slice(i + 1, end);
      if (cls.startsWith('^')) cls = '^' + cls.slice(1);
      re += `[${cls.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else if (c === '\\' && i + 1 < pattern.length) re += '\\' + pattern[++i];
    else re += c.replace(/[.+^${}()|\]\\]/g, '\\$&');
  }
  return new RegExp(re + '$').test(path);
}

/**
 * Checks every bundle file (paths without a leading slash) against the signed digests.
 * Throws on the first mismatch, an unlisted file, or a listed file that is missing.
 */
export function verifyBundleFiles(
  entries: { path: string; bytes: Uint8Array }[],
  signed: Map<string, FileInfo>,
  exclude?: string[],
): void {
  const pending = new Map(signed);
  for (const e of entries) {
    if (e.path === SIGNATURES_FILE) continue;
    if (excluded(e.path, exclude)) {
      pending.delete(e.path);
      continue;
    }
    const f = pending.get(e.path);
    if (!f) throw new BundleError(`file ${e.path} not included in bundle signature`);
    if (!f.algorithm) throw new BundleError(`no hashing algorithm provided for file ${e.path}`);
    if (!isSupportedHashAlgorithm(f.algorithm)) throw new BundleError(`unsupported hashing algorithm: ${f.algorithm}`);
    let got: string;
    try {
      got = hashBundleFile(e.path, e.bytes, f.algorithm);
    } catch (err) {
      throw new BundleError(`${e.path}: ${(err as Error).message}`);
    }
    if (got !== f.hash.toLowerCase()) {
      throw new BundleError(`${e.path}: digest mismatch (want: ${f.hash}, got: ${got})`);
    }
    pending.delete(e.path);
  }
  if (pending.size > 0) {
    throw new BundleError(
      `file(s) [${[...pending.keys()].join(' ')}] specified in bundle signatures but not found in the target bundle`,
    );
  }
}
