// The TLS listener: --tls-cert-file / --tls-private-key-file, client verification with
// --tls-ca-cert-file (mutual TLS), --min-tls-version and --tls-cipher-suites (IANA names, as
// OPA takes them). Certificates are read again when the files change and on a periodic
// refresh, and swapped in with setSecureContext: open connections keep theirs, new ones get
// the new certificate, nothing is dropped.

import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { Server as HttpsServer, ServerOptions as HttpsOptions } from 'node:https';
import type { SecureVersion } from 'node:tls';
import type { Logger } from 'pino';

export interface TLSOptions {
  certFile: string;
  keyFile: string;
  /** CA bundle verifying client certificates: clients must present one it signed. */
  caFile?: string;
  /** "1.0" | "1.1" | "1.2" | "1.3" (OPA's default 1.2). */
  minVersion?: string;
  /** IANA cipher suite names (TLS 1.2 and below). */
  cipherSuites?: string[];
  /** Re-read the files at least this often (ms); 0: only when they change. */
  refreshMs?: number;
}

export class TLSConfigError extends Error {}

const VERSIONS: Record<string, SecureVersion> = { '1.0': 'TLSv1', '1.1': 'TLSv1.1', '1.2': 'TLSv1.2', '1.3': 'TLSv1.3' };

// IANA names -> OpenSSL names, for the suites Go (and so OPA) offers.
const CIPHERS: Record<string, string> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
};

function read(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new TLSConfigError(`${what}: ${(e as Error).message}`);
  }
}

function material(o: TLSOptions): { cert: Buffer; key: Buffer; ca?: Buffer } {
  return { cert: read(o.certFile, 'tls-cert-file'), key: read(o.keyFile, 'tls-private-key-file'), ...(o.caFile ? { ca: read(o.caFile, 'tls-ca-cert-file') } : {}) };
}

/** Options for https.createServer; throws TLSConfigError for unreadable files or unknown names. */
export function httpsOptions(o: TLSOptions): HttpsOptions {
  const minVersion = VERSIONS[o.minVersion ?? '1.2'];
  if (!minVersion) throw new TLSConfigError(`invalid min-tls-version "${o.minVersion}": must be one of 1.0, 1.1, 1.2, 1.3`);
  const out: HttpsOptions = { ...material(o), minVersion };
  if (o.cipherSuites?.length) {
    const unknown = o.cipherSuites.filter((c) => !CIPHERS[c]);
    if (unknown.length) throw new TLSConfigError(`invalid tls-cipher-suites: ${unknown.join(', ')}`);
    out.ciphers = o.cipherSuites.map((c) => CIPHERS[c]).join(':');
  }
  if (o.caFile) {
    out.requestCert = true;
    out.rejectUnauthorized = true;
  }
  return out;
}

/** Swaps in re-read certificates when the files change and every refreshMs; returns a stop function. */
export function reloadCertificates(server: HttpsServer, o: TLSOptions, base: HttpsOptions, logger?: Logger): () => void {
  let last = '';
  const reload = () => {
    try {
      const m = material(o);
      const key = m.cert.toString('base64') + m.key.toString('base64') + (m.ca?.toString('base64') ?? '');
      if (key === last) return;
      server.setSecureContext({ ...base, ...m });
      if (last) logger?.info('TLS certificates reloaded.');
      last = key;
    } catch (e) {
      // a half-written file keeps the old certificate in service
      logger?.warn({ err: (e as Error).message }, 'TLS certificates not reloaded.');
    }
  };
  reload();
  const files = [o.certFile, o.keyFile, ...(o.caFile ? [o.caFile] : [])];
  for (const f of files) watchFile(f, { interval: 500, persistent: false }, reload);
  const timer = o.refreshMs ? setInterval(reload, o.refreshMs) : undefined;
  timer?.unref();
  return () => {
    for (const f of files) unwatchFile(f, reload);
    if (timer) clearInterval(timer);
  };
}
