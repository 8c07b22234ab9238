// The service client: headers, bearer tokens (re-read from token_path), OAuth2 client
// credentials (token cached until expiry), client TLS against a loopback HTTPS server
// that requires a client certificate, and the response header timeout.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { httpServer } from '../../loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'regolith-svc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function client(svc: Record<string, unknown>, msPerSecond = 1000): ServiceClient {
  const c = validateConfig({ services: { s: svc } });
  return new ServiceClient(c.services['s']!, msPerSecond);
}

describe('service client', () => {
  it('sends configured headers and a bearer token re-read from token_path', async () => {
    const srv = await httpServer((_req, res) => void res.end('ok'));
    try {
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, 'first\n');
      const c = client({ url: srv.url + '/base/', headers: { 'x-team': 'red' }, credentials: { bearer: { token_path: tokenFile, scheme: 'Token' } } });
      await c.request({ method: 'GET', path: '/bundles/a' });
      writeFileSync(tokenFile, 'second');
      await c.request({ method: 'GET', path: 'bundles/b' });
      expect(srv.requests.map((r) => [r.url, r.headers['authorization'], r.headers['x-team']])).toEqual([
        ['/base/bundles/a', 'Token first', 'red'],
        ['/base/bundles/b', 'Token second', 'red'],
      ]);
    } finally {
      await srv.close();
    }
  });

  it('gets OAuth2 client-credentials tokens and caches them until expiry', async () => {
    let issued = 0;
    const srv = await httpServer((req, res) => {
      if (req.url === '/token') {
        expect(req.headers['authorization']).toBe('Basic ' + Buffer.from('cid:csecret').toString('base64'));
        const form = new URLSearchParams(req.body.toString());
        expect(form.get('grant_type')).toBe('client_credentials');
        expect(form.get('scope')).toBe('read write');
        issued++;
        res.setHeader('content-type', 'application/json');
        return void res.end(JSON.stringify({ access_token: `tok${issued}`, token_type: 'bearer', expires_in: 3600 }));
      }
      res.statusCode = req.headers['authorization'] === `Bearer tok${issued}` ? 200 : 401;
      res.end();
    });
    try {
      const c = client({ url: srv.url, credentials: { oauth2: { token_url: srv.url + '/token', client_id: 'cid', client_secret: 'csecret', scopes: ['read', 'write'] } } });
      const statuses = await Promise.all([1, 2, 3].map(() => c.request({ method: 'GET', path: '/x' }).then((r) => r.status)));
      statuses.push((await c.request({ method: 'GET', path: '/x' })).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
      expect(issued).toBe(1);
    } finally {
      await srv.close();
    }
  });

  it('times out waiting for response headers', async () => {
    const srv = await httpServer(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 1000));
      res.end();
    });
    try {
      // 2 configured seconds at 50ms per second.
      const c = client({ url: srv.url, response_header_timeout_seconds: 2 }, 50);
      const t0 = Date.now();
      await expect(c.request({ method: 'GET', path: '/' })).rejects.toThrow(/timeout awaiting response headers/);
      expect(Date.now() - t0).toBeLessThan(900);
    } finally {
      await srv.close();
    }
  });

  const openssl = ['/usr/bin/openssl', '/usr/local/bin/openssl'].find((p) => existsSync(p));
  it.skipIf(!openssl)('presents a client certificate to a server that requires one, trusting the configured CA', async () => {
    const f = (n: string) => join(dir, n);
    const run = (...args: string[]) => execFileSync(openssl!, args, { stdio: 'pipe' });
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '2', '-subj', '/CN=test-ca');
    writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    for (const who of ['server', 'client']) {
      run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${who}.key`), '-out', f(`${who}.csr`), '-subj', `/CN=${who}`);
      run('x509', '-req', '-in', f(`${who}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${who}.crt`), '-days', '2', '-extfile', f('san.ext'));
    }
    const seen: string[] = [];
    const server = https.createServer(
      { key: readFileSync(f('server.key')), cert: readFileSync(f('server.crt')), ca: readFileSync(f('ca.crt')), requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
        seen.push(peer.subject.CN as string);
        res.end('ok');
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const good = client({ url, tls: { ca_cert: f('ca.crt') }, credentials: { client_tls: { cert: f('client.crt'), private_key: f('client.key') } } });
      const r = await good.request({ method: 'GET', path: '/' });
      expect(r.status).toBe(200);
      expect(seen).toEqual(['client']);
      // Without the CA the server's certificate is not trusted.
      const untrusting = client({ url, credentials: { client_tls: { cert: f('client.crt'), private_key: f('client.key') } } });
      await expect(untrusting.request({ method: 'GET', path: '/' })).rejects.toThrow();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
