// An HTTP and an HTTPS server on 127.0.0.1 serving one handler, the HTTPS one with a
// self-signed certificate made by openssl for the test: the peers of the http.send tests.

import http from 'node:http';
import https from 'node:https';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';

export interface LoopbackServers {
  base: string;
  tlsBase: string;
  /** The HTTPS server's certificate, to trust as a CA. */
  caPem: string;
  close(): void;
}

export async function startLoopbackServers(handler: http.RequestListener): Promise<LoopbackServers> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regolith-http-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' });
  const caPem = fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  const tlsServer = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: caPem }, handler);
  await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tlsBase: `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`,
    caPem,
    close() {
      server.closeAllConnections();
      server.close();
      tlsServer.closeAllConnections();
      tlsServer.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
