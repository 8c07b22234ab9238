// Producing `.signatures.json`: one JWS (compact JWT) whose payload lists every file of
// the bundle with its digest, signed with the configured key, as `opa build`/`opa sign` do.

import { DEFAULT_HASH_ALGORITHM, hashBundleFile } from './hash.js';
import { DEFAULT_SIGNING_ALG, signingKey } from './keys.js';
import type { FileInfo, SignaturesConfig, SigningConfig } from './types.js';

export const SIGNATURES_FILE = '.signatures.json';

/** Digests of the bundle files (paths without a leading slash), signatures file excluded. */
export function fileInfos(entries: { path: string; bytes: Uint8Array }[]): FileInfo[] {
  return entries
    .filter((e) => e.path !== SIGNATURES_FILE)
    .map((e) => ({ name: e.path, hash: hashBundleFile(e.path, e.bytes), algorithm: DEFAULT_HASH_ALGORITHM }));
}

/** Go's json.Marshal of a map sorts keys; the payload is written the same way. */
function sortedPayload(payload: Record<string, unknown>): string {
  const keys = Object.keys(payload).sort();
  return JSON.stringify(Object.fromEntries(keys.map((k) => [k, payload[k]])));
}

export async function signFiles(files: FileInfo[], config: SigningConfig): Promise<string> {
  const alg = config.algorithm ?? DEFAULT_SIGNING_ALG;
  const key = signingKey(config.key, alg);
  const payload: Record<string, unknown> = { files };
  if (config.claims) Object.assign(payload, config.claims, { files });
  else if (config.keyid) payload.keyid = config.keyid; // deprecated claim, kept for older verifiers
  const header: { alg: string; kid?: string } = { alg };
  if (config.keyid) header.kid = config.keyid;
  // jose is loaded when the first bundle is signed.
  const { CompactSign } = await import('jose');
  return new CompactSign(new TextEncoder().encode(sortedPayload(payload))).setProtectedHeader(header).sign(key);
}

/** Signs the given bundle files and returns the `.signatures.json` document. */
export async function signBundleEntries(
  entries: { path: string; bytes: Uint8Array }[],
  config: SigningConfig,
): Promise<SignaturesConfig> {
  return { signatures: [await signFiles(fileInfos(entries), config)] };
}

/** The `.signatures.json` text as OPA writes it (indented by one space). */
export function signaturesFileText(sc: SignaturesConfig): string {
  const out: Record<string, unknown> = {};
  if (sc.signatures?.length) out.signatures = sc.signatures;
  if (sc.plugin) out.plugin = sc.plugin;
  return JSON.stringify(out, null, 1);
}
