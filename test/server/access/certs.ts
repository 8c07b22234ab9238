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
  /** alice's certificate from the right CA, valid only in January 2020. */
  expired: Pair;
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

/** A certificate the CA signed for a validity period long past (openssl ca sets the dates). */
function issueExpired(dir: string, name: string, subj: string): Pair {
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    '[ca]\ndefault_ca = d\n[d]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\npolicy = p\nunique_subject = no\n[p]\ncommonName = supplied\norganizationName = optional\n[ext]\nextendedKeyUsage = clientAuth\n',
  );
  ssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subj]);
  ssl(dir, ['ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.crt', '-keyfile', 'ca.key', '-in', `${name}.csr`, '-out', `${name}.crt`, '-startdate', '20200101000000Z', '-enddate', '20200201000000Z', '-extensions', 'ext', '-notext']);
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
    expired: issueExpired(dir, 'expired', '/O=acme/CN=alice'),
  };
}
