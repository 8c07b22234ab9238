// The shared secret an incoming request must carry (event adapters' senders, push
// notifications of data adapters): read from the configuration or re-read from its file on
// every request (a rotated secret works without a restart), compared in constant time.

import { createHash, timingSafeEqual } from 'node:crypto';
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
