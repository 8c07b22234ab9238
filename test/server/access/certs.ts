// Certificates for the security tests, made by openssl in a temporary directory: a CA, a
// server certificate for 127.0.0.1, client certificates it signed, and a second CA with a
// client certificate of its own (which the server must refuse).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Pair {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export interface Certs {
  dir: string;
  ca: Pair;
  server: Pair;
  alice: Pair;
  bob: Pair;
  otherCA: Pair;
  mallory: Pair;
}

function ssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function pair(dir: string, name: string): Pair {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

function makeCA(dir: string, name: string, cn: string): Pair {
  ssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${cn}`]);
  return pair(dir, name);
}

function issue(dir: string, name: string, subj: string, ca: string, ext?: string): Pair {
  ssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subj]);
  const args = ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.crt`, '-days', '2'];
  if (ext) {
    writeFileSync(join(dir, `${name}.ext`), ext);
    args.push('-extfile', `${name}.ext`);
  }
  ssl(dir, args);
  return pair(dir, name);
}

export function makeCerts(): Certs {
  const dir = mkdtempSync(join(tmpdir(), 'regolith-certs-'));
  const ca = makeCA(dir, 'ca', 'Regolith Test CA');
  const otherCA = makeCA(dir, 'other-ca', 'Somebody Else CA');
  return {
    dir,
    ca,
    otherCA,
    server: issue(dir, 'server', '/CN=localhost', 'ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'),
    alice: issue(dir, 'alice', '/O=acme/CN=alice', 'ca', 'extendedKeyUsage=clientAuth\n'),
    bob: issue(dir, 'bob', '/O=acme/CN=bob', 'ca', 'extendedKeyUsage=clientAuth\n'),
    mallory: issue(dir, 'mallory', '/O=acme/CN=alice', 'other-ca', 'extendedKeyUsage=clientAuth\n'),
  };
}
