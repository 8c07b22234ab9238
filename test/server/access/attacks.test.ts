// A server locked down as OPA users lock it (--authentication=token|tls,
// --authorization=basic, TLS and mutual TLS with openssl-made certificates), and the
// attempts that must all be refused. Prints the table: tried, refused, let through.

import { request, type RequestOptions } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { makeCerts, type Certs } from './certs.js';

const AUTHZ = `package system.authz

default allow := false

# the operator's token may do anything
allow if input.identity == "operator-secret"

# anyone may read the public document, and only that
allow if {
	input.method == "GET"
	input.path == ["v1", "data", "public"]
}

# alice (by client certificate) may write her own document
allow if {
	input.identity == "CN=alice,O=acme"
	input.method == "PUT"
	input.path == ["v1", "data", "users", "alice"]
}

# a JWT signed with the shared key, not expired, with the admin role
allow if {
	[valid, _, claims] := io.jwt.decode_verify(input.identity, {"secret": "jwt-key", "time": time.now_ns()})
	valid
	claims.role == "admin"
}

# a decision with a reason
allow := {"allowed": false, "reason": "health checks go to the diagnostic port"} if input.path == ["health", "reasoned"]
`;

interface Reply {
  status: number;
  body: string;
}

let certs: Certs;
let tokenServer: RunningServer;
let mtlsServer: RunningServer;

async function seed(engine: RegolithEngine): Promise<void> {
  await engine.putPolicy('authz.rego', AUTHZ);
  await engine.putPolicy('app.rego', 'package app\n\nsecret := "the crown jewels"\n');
  await engine.store.transact(async (txn) => {
    txn.write('add', ['public'], { motd: 'hello' });
    txn.write('add', ['secret'], { key: 'hunter2' });
    txn.write('add', ['users'], {});
  });
}

beforeAll(async () => {
  certs = makeCerts();
  const quiet = pino({ level: 'silent' });
  const e1 = new RegolithEngine();
  await seed(e1);
  tokenServer = await startServer({ addr: '127.0.0.1:0', engine: e1, logger: quiet, processMetrics: false, tls: { certFile: certs.server.certFile, keyFile: certs.server.keyFile }, access: { authentication: 'token', authorization: 'basic' }, limits: { maxLength: 64 * 1024, gzipMaxLength: 256 * 1024 } });
  const e2 = new RegolithEngine();
  await seed(e2);
  mtlsServer = await startServer({ addr: '127.0.0.1:0', engine: e2, logger: quiet, processMetrics: false, tls: { certFile: certs.server.certFile, keyFile: certs.server.keyFile, caFile: certs.ca.certFile }, access: { authentication: 'tls', authorization: 'basic' } });
}, 30000);
afterAll(async () => {
  await tokenServer?.close();
  await mtlsServer?.close();
});

function send(server: RunningServer, method: string, path: string, o: { headers?: Record<string, string>; body?: Buffer | string; client?: { cert: string; key: string } } = {}): Promise<Reply | { error: string }> {
  const opts: RequestOptions = { host: '127.0.0.1', port: server.port, method, path, ca: certs.ca.cert, headers: o.headers, ...(o.client ?? {}) };
  return new Promise((resolve) => {
    const r = request(opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', (e) => resolve({ error: e.message }));
    });
    r.on('error', (e) => resolve({ error: e.message }));
    r.setTimeout(5000, () => r.destroy(new Error('timeout')));
    r.end(o.body);
  });
}

const refused = (r: Reply | { error: string }) => 'error' in r || r.status >= 400;

/** An HS256 JWT (made here with node:crypto, independently of the policy's verification). */
function jwt(claims: Record<string, unknown>, key: string): string {
  const b64 = (x: unknown) => Buffer.from(JSON.stringify(x)).toString('base64url');
  const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${head}.${createHmac('sha256', key).update(head).digest('base64url')}`;
}
const now = () => Math.floor(Date.now() / 1000);
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

describe('what is allowed stays allowed', () => {
  it('a valid JWT with the admin role', async () => {
    expect(await send(tokenServer, 'GET', '/v1/data/secret', { headers: bearer(jwt({ role: 'admin', exp: now() + 600 }, 'jwt-key')) })).toMatchObject({ status: 200 });
  });
  it('the public document without a token; anything with the operator token', async () => {
    expect(await send(tokenServer, 'GET', '/v1/data/public')).toMatchObject({ status: 200 });
    expect(await send(tokenServer, 'GET', '/v1/data/secret', { headers: bearer('operator-secret') })).toMatchObject({ status: 200 });
    const put = await send(tokenServer, 'PUT', '/v1/policies/extra.rego', { headers: { ...bearer('operator-secret'), 'content-type': 'text/plain' }, body: 'package extra\n\nx := 1\n' });
    expect(put).toMatchObject({ status: 200 });
  });
  it('alice writes her document with her client certificate', async () => {
    const r = await send(mtlsServer, 'PUT', '/v1/data/users/alice', { client: certs.alice, body: '{"x": 1}' });
    expect(r).toMatchObject({ status: 204 });
  });
  it('a denial is OPA\'s 401, with the policy\'s reason when it gives one', async () => {
    expect(await send(tokenServer, 'GET', '/v1/data/secret')).toEqual({ status: 401, body: '{\n  "code": "unauthorized",\n  "message": "request rejected by administrative policy"\n}\n' });
    const reasoned = await send(tokenServer, 'GET', '/health/reasoned');
    expect(reasoned).toMatchObject({ status: 401 });
    expect((reasoned as Reply).body).toContain('health checks go to the diagnostic port');
  });
});

describe('attempts that must all be refused', () => {
  const table: [string, string, boolean][] = [];
  afterAll(() => {
    const through = table.filter(([, , r]) => !r);
    console.log(`\nattack table: ${table.length} tried, ${table.length - through.length} refused, ${through.length} let through`);
    for (const [group, what, r] of table) console.log(`  ${r ? 'refused ' : 'LET THROUGH'}  ${group}: ${what}`);
  });
  /** Refused, or (for `harmless`) answered with nothing the policy does not allow. */
  const attempt = async (group: string, what: string, p: Promise<Reply | { error: string }>, harmless = false) => {
    const r = await p;
    const ok = refused(r) || (harmless && !('error' in r) && !/hunter2|crown jewels/.test(r.body));
    table.push([group, what, ok]);
    expect(ok, `${group}: ${what} -> ${JSON.stringify(r)}`).toBe(true);
  };

  it('tokens: missing, wrong, malformed, in the wrong place', async () => {
    await attempt('token', 'no token', send(tokenServer, 'GET', '/v1/data/secret'));
    await attempt('token', 'wrong token', send(tokenServer, 'GET', '/v1/data/secret', { headers: bearer('operator-secreT') }));
    await attempt('token', 'token with a suffix', send(tokenServer, 'GET', '/v1/data/secret', { headers: bearer('operator-secret-x') }));
    await attempt('token', 'Basic scheme', send(tokenServer, 'GET', '/v1/data/secret', { headers: { authorization: 'Basic b3BlcmF0b3Itc2VjcmV0' } }));
    await attempt('token', 'Bearer with two tokens', send(tokenServer, 'GET', '/v1/data/secret', { headers: { authorization: 'Bearer operator-secret extra' } }));
    await attempt('token', 'token as a query parameter', send(tokenServer, 'GET', '/v1/data/secret?token=operator-secret&access_token=operator-secret'));
    await attempt('token', 'token in another header', send(tokenServer, 'GET', '/v1/data/secret', { headers: { 'x-authorization': 'Bearer operator-secret' } }));
    await attempt('token', 'an expired JWT', send(tokenServer, 'GET', '/v1/data/secret', { headers: bearer(jwt({ role: 'admin', exp: now() - 60 }, 'jwt-key')) }));
    await attempt('token', 'a JWT signed with another key', send(tokenServer, 'GET', '/v1/data/secret', { headers: bearer(jwt({ role: 'admin', exp: now() + 600 }, 'not-the-key')) }));
    await attempt('token', 'a JWT without the role', send(tokenServer, 'GET', '/v1/data/secret', { headers: bearer(jwt({ role: 'viewer', exp: now() + 600 }, 'jwt-key')) }));
    await attempt('token', 'a malformed JWT', send(tokenServer, 'GET', '/v1/data/secret', { headers: bearer('eyJhbGciOiJIUzI1NiJ9.e30.') }));
    await attempt('token', 'a JWT with alg none', send(tokenServer, 'GET', '/v1/data/secret', { headers: bearer(`${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ role: 'admin' })).toString('base64url')}.`) }));
  });

  it('paths: doubled slashes, dot segments, escapes, case, trailing slash, long paths', async () => {
    for (const p of ['//v1/data/secret', '/v1/data/public/../secret', '/v1/data/public/%2e%2e/secret', '/v1/data/public%2F..%2Fsecret', '/v1/data/%70ublic/../secret', '/V1/data/secret', '/v1/data/public/', '/v1/data/public//', '/v1/data/' + 'a/'.repeat(2000) + 'secret', '/v1/data/public%00', '/v1/data/app/secret', '/v1/data'])
      await attempt('path', p.length > 60 ? p.slice(0, 57) + '...' : p, send(tokenServer, 'GET', p));
    // a query string is not part of the path: this reads the public document, nothing else
    await attempt('path', '/v1/data/public?x=/../secret (answers the public document only)', send(tokenServer, 'GET', '/v1/data/public?x=/../secret'), true);
  });

  it('methods: HEAD, OPTIONS, method override headers, writes to the public document', async () => {
    await attempt('method', 'HEAD secret', send(tokenServer, 'HEAD', '/v1/data/secret'));
    await attempt('method', 'OPTIONS', send(tokenServer, 'OPTIONS', '/v1/data/secret'));
    await attempt('method', 'POST with X-HTTP-Method-Override: GET', send(tokenServer, 'POST', '/v1/data/secret', { headers: { 'x-http-method-override': 'GET' }, body: '{}' }));
    await attempt('method', 'PUT public', send(tokenServer, 'PUT', '/v1/data/public', { body: '{"motd": "pwned"}' }));
    await attempt('method', 'PATCH public', send(tokenServer, 'PATCH', '/v1/data/public', { body: '[]' }));
    await attempt('method', 'DELETE public', send(tokenServer, 'DELETE', '/v1/data/public'));
  });

  it('the authorization policy cannot be replaced or removed without its consent', async () => {
    const open = 'package system.authz\n\nallow := true\n';
    await attempt('policy', 'PUT a permissive system.authz', send(tokenServer, 'PUT', '/v1/policies/authz.rego', { headers: { 'content-type': 'text/plain' }, body: open }));
    await attempt('policy', 'PUT a second module into system.authz', send(tokenServer, 'PUT', '/v1/policies/sneaky.rego', { headers: { 'content-type': 'text/plain' }, body: open }));
    await attempt('policy', 'DELETE the authz module', send(tokenServer, 'DELETE', '/v1/policies/authz.rego'));
    await attempt('policy', 'PUT data.system', send(tokenServer, 'PUT', '/v1/data/system', { body: '{"authz": {"allow": true}}' }));
    await attempt('policy', 'list the policies', send(tokenServer, 'GET', '/v1/policies'));
    await attempt('policy', 'ad-hoc query reading the secret', send(tokenServer, 'GET', '/v1/query?q=' + encodeURIComponent('x := data.secret')));
    // still locked after the attempts
    expect(await send(tokenServer, 'GET', '/v1/data/secret')).toMatchObject({ status: 401 });
  });

  it('oversized headers, bodies and gzip bombs', async () => {
    await attempt('size', 'a 64 KB header', send(tokenServer, 'GET', '/v1/data/public', { headers: { 'x-big': 'a'.repeat(64 * 1024) } }));
    await attempt('size', 'a body over the decoding limit', send(tokenServer, 'POST', '/v1/data/public', { headers: bearer('nope'), body: JSON.stringify({ input: 'x'.repeat(100 * 1024) }) }));
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 32));
    await attempt('size', `a gzip bomb (${bomb.length} bytes -> 8 MB)`, send(tokenServer, 'POST', '/v1/data/public', { headers: { 'content-encoding': 'gzip' }, body: bomb }));
  });

  it('slow clients: headers and bodies trickled in are cut off in bounded time', async () => {
    const slow = await startServer({ addr: '127.0.0.1:0', engine: new RegolithEngine(), logger: pino({ level: 'silent' }), processMetrics: false, tls: { certFile: certs.server.certFile, keyFile: certs.server.keyFile }, timeouts: { headersMs: 800, requestMs: 1500 } });
    try {
      const trickle = (head: string, drip: string) =>
        new Promise<{ error: string } | Reply>((resolve) => {
          const t0 = Date.now();
          const sock = tlsConnect({ host: '127.0.0.1', port: slow.port, ca: certs.ca.cert, servername: 'localhost' }, () => {
            sock.write(head);
            const timer = setInterval(() => sock.write(drip), 200);
            sock.on('close', () => {
              clearInterval(timer);
              resolve(Date.now() - t0 < 5000 ? { error: `closed after ${Date.now() - t0} ms` } : { status: 200, body: 'held open' });
            });
          });
          sock.on('error', () => {});
          sock.setTimeout(8000, () => sock.destroy());
        });
      await attempt('slow', 'headers one byte at a time', trickle('GET /v1/data HTTP/1.1\r\nHost: x\r\n', 'X'));
      await attempt('slow', 'a body one byte at a time', trickle('POST /v1/data/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n', '{'));
    } finally {
      await slow.close();
    }
  });

  it('client certificates: none, from another CA, expired, of another user', async () => {
    await attempt('mtls', 'no client certificate', send(mtlsServer, 'PUT', '/v1/data/users/alice', { body: '{}' }));
    await attempt('mtls', 'a certificate for CN=alice from another CA', send(mtlsServer, 'PUT', '/v1/data/users/alice', { client: certs.mallory, body: '{}' }));
    await attempt('mtls', "alice's certificate, expired", send(mtlsServer, 'PUT', '/v1/data/users/alice', { client: certs.expired, body: '{}' }));
    await attempt('mtls', "bob writing alice's document", send(mtlsServer, 'PUT', '/v1/data/users/alice', { client: certs.bob, body: '{}' }));
    await attempt('mtls', 'alice reading the secret', send(mtlsServer, 'GET', '/v1/data/secret', { client: certs.alice }));
    await attempt('mtls', 'alice spoofing the identity header', send(mtlsServer, 'GET', '/v1/data/secret', { client: certs.alice, headers: { authorization: 'Bearer operator-secret' } }));
  });
});

describe('policy failures deny', () => {
  it('an undefined decision and an evaluation error are 500s, not passes', async () => {
    const e = new RegolithEngine();
    await e.putPolicy('authz.rego', 'package system.authz\n\nallow := x if { x := 1 / input.zero }\n');
    const s = await startServer({ addr: '127.0.0.1:0', engine: e, logger: pino({ level: 'silent' }), processMetrics: false, tls: { certFile: certs.server.certFile, keyFile: certs.server.keyFile }, access: { authorization: 'basic' } });
    try {
      expect(await send(s, 'GET', '/v1/data')).toMatchObject({ status: 500 });
      await e.putPolicy('authz.rego', 'package system.authz\n\nallow := 1 / 0\n');
      const r = await send(s, 'GET', '/v1/data');
      expect(refused(r)).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe('the @open-policy-agent/opa SDK against a token-protected TLS server', () => {
  it('evaluates with the token, and is refused without it', async () => {
    const { OPAClient } = await import('@open-policy-agent/opa');
    const { HTTPClient } = await import('@open-policy-agent/opa/lib/http.js');
    const { Agent, fetch: trustedFetch } = await import('undici');
    const dispatcher = new Agent({ connect: { ca: certs.ca.cert } });
    // the SDK's fetch, trusting the test CA (undici's own fetch, with a dispatcher that knows it)
    const httpClient = () =>
      new HTTPClient({
        fetcher: async (input, init) => {
          const req = input instanceof Request ? input : new Request(input, init);
          const body = req.body ? await req.text() : undefined;
          const r = await trustedFetch(req.url, { method: req.method, headers: Object.fromEntries(req.headers), body, dispatcher });
          const bytes = await r.arrayBuffer();
          return new Response(r.status === 204 || r.status === 304 ? null : bytes, { status: r.status, headers: Object.fromEntries(r.headers) });
        },
      });
    const withToken = new OPAClient(tokenServer.url, { headers: { authorization: 'Bearer operator-secret' }, sdk: { httpClient: httpClient() } });
    expect(await withToken.evaluate('secret')).toEqual({ key: 'hunter2' });
    const without = new OPAClient(tokenServer.url, { sdk: { httpClient: httpClient() } });
    await expect(without.evaluate('secret')).rejects.toThrow();
    expect(await without.evaluate('public')).toEqual({ motd: 'hello' });
    await dispatcher.close();
  });
});
