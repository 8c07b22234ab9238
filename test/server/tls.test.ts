// The TLS listener: certificates swapped in when the files change (new connections get the
// new one, an open connection keeps working), the minimum version, cipher suite names.

import { copyFileSync } from 'node:fs';
import { request, Agent } from 'node:https';
import { connect } from 'node:tls';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, TLSConfigError, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { makeCerts, type Certs } from './access/certs.js';

let certs: Certs;
let s: RunningServer;
const live = () => ({ certFile: join(certs.dir, 'live.crt'), keyFile: join(certs.dir, 'live.key') });

beforeAll(async () => {
  certs = makeCerts();
  copyFileSync(certs.server.certFile, live().certFile);
  copyFileSync(certs.server.keyFile, live().keyFile);
  s = await startServer({ addr: '127.0.0.1:0', engine: new RegolithEngine(), logger: pino({ level: 'silent' }), processMetrics: false, tls: { ...live(), minVersion: '1.3' } });
}, 30000);
afterAll(() => s?.close());

function peerCN(o: { maxVersion?: 'TLSv1.2' | 'TLSv1.3' } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port: s.port, ca: [certs.ca.cert, certs.otherCA.cert], servername: 'localhost', ...o }, () => {
      const cn = sock.getPeerCertificate().subject?.CN as string;
      sock.end();
      resolve(cn);
    });
    sock.on('error', reject);
  });
}

function get(agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: s.port, path: '/health', agent, ca: certs.ca.cert }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

describe('TLS listener', () => {
  it('serves the certificate and refuses clients below the minimum version', async () => {
    expect(await peerCN()).toBe('localhost');
    await expect(peerCN({ maxVersion: 'TLSv1.2' })).rejects.toThrow();
  });

  it('swaps in a replaced certificate without dropping an open connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(agent)).toBe(200);
    // replace the files with a certificate the other CA signed for another name
    const { execFileSync } = await import('node:child_process');
    execFileSync('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'next.key', '-out', 'next.csr', '-subj', '/CN=renewed'], { cwd: certs.dir, stdio: 'pipe' });
    execFileSync('openssl', ['x509', '-req', '-in', 'next.csr', '-CA', 'other-ca.crt', '-CAkey', 'other-ca.key', '-CAcreateserial', '-out', 'next.crt', '-days', '2', '-extfile', 'server.ext'], { cwd: certs.dir, stdio: 'pipe' });
    copyFileSync(join(certs.dir, 'next.key'), live().keyFile);
    copyFileSync(join(certs.dir, 'next.crt'), live().certFile);
    let cn = '';
    for (let i = 0; i < 40 && cn !== 'renewed'; i++) {
      await new Promise((r) => setTimeout(r, 150));
      cn = await peerCN();
    }
    expect(cn).toBe('renewed');
    // the keep-alive connection made before the swap still answers
    expect(await get(agent)).toBe(200);
    agent.destroy();
  });

  it('refuses unknown cipher suite names and versions at start', async () => {
    const base = { addr: '127.0.0.1:0', engine: new RegolithEngine(), logger: pino({ level: 'silent' }), processMetrics: false };
    await expect(startServer({ ...base, tls: { ...live(), cipherSuites: ['TLS_FAKE_WITH_NOTHING'] } })).rejects.toThrow(TLSConfigError);
    await expect(startServer({ ...base, tls: { ...live(), minVersion: '0.9' } })).rejects.toThrow(/min-tls-version/);
    await expect(startServer({ ...base, tls: { certFile: '/no/such.crt', keyFile: live().keyFile } })).rejects.toThrow(/tls-cert-file/);
  });
});
