// The shared secret an incoming request must carry (event adapters' senders, push
// notifications of data adapters): read from the configuration or re-read from its file on
// every request (a rotated secret works without a restart), compared in constant time.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface SecretConfig {
  token?: string;
  token_path?: string;
  /** The header it comes in; `authorization` means `Authorization: Bearer <token>`. */
  token_header: string;
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** The configured secret; throws when its file cannot be read. */
export function expectedSecret(c: SecretConfig): string {
  return c.token ?? readFileSync(c.token_path!, 'utf8').trim();
}

/** Whether the headers carry the secret. Throws when the secret itself cannot be read. */
export function carriesSecret(c: SecretConfig, headers: Record<string, string | undefined>): boolean {
  const header = c.token_header.toLowerCase();
  let got = headers[header];
  if (got === undefined) return false;
  if (header === 'authorization') {
    const m = /^Bearer\s+(.+)$/i.exec(got);
    if (!m) return false;
    got = m[1]!;
  }
  return timingSafeEqual(digest(got.trim()), digest(expectedSecret(c)));
}

/** An HMAC signature of the body (what many CI systems send instead of a token). */
export interface SignatureConfig {
  /** The header the signature comes in (e.g. x-hub-signature-256). */
  header: string;
  algorithm: 'sha1' | 'sha256' | 'sha512';
  encoding: 'hex' | 'base64';
  /** Text before the signature in the header (e.g. "sha256="); none by default. */
  prefix: string;
  /** When set, the header carrying the delivery's Unix time: required, within the replay window, and signed as "<timestamp>.<body>". */
  timestamp_header?: string;
  replay_window_seconds: number;
}

/**
 * Whether the body carries a valid signature made with the secret: an HMAC of the body
 * (or of "<timestamp>.<body>" when a timestamp header is configured, refused outside the
 * replay window), compared in constant time.
 */
export function carriesSignature(c: SignatureConfig, secret: string, body: Buffer, headers: Record<string, string | undefined>, nowMs = Date.now()): boolean {
  let got = headers[c.header.toLowerCase()]?.trim();
  if (got === undefined) return false;
  if (c.prefix) {
    if (!got.toLowerCase().startsWith(c.prefix.toLowerCase())) return false;
    got = got.slice(c.prefix.length);
  }
  const mac = createHmac(c.algorithm, secret);
  if (c.timestamp_header) {
    const ts = headers[c.timestamp_header.toLowerCase()]?.trim();
    if (ts === undefined || !/^\d+$/.test(ts)) return false;
    if (Math.abs(nowMs / 1000 - Number(ts)) > c.replay_window_seconds) return false;
    mac.update(`${ts}.`);
  }
  const want = mac.update(body).digest();
  // decoding skips what is not of the alphabet: such text is no signature
  if (!(c.encoding === 'hex' ? /^[0-9a-f]+$/i : /^[A-Za-z0-9+/]+={0,2}$/).test(got)) return false;
  const presented = Buffer.from(got, c.encoding);
  if (presented.length !== want.length) return false;
  return timingSafeEqual(presented, want);
}

/** Whether a token given in the path (/v1/events/<name>/<token>) is the secret. */
export function pathTokenMatches(c: SecretConfig, token: string): boolean {
  return timingSafeEqual(digest(token), digest(expectedSecret(c)));
}
