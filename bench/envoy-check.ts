// Envoy Check decisions/s next to the REST path (issue 32). The server (bench/envoy-server.ts,
// compiled as tsup compiles dist/) runs in a child process with one engine behind both the
// REST API and the Envoy plugin; load comes from here over loopback, 10 requests in flight:
//   REST  POST /v1/data/envoy/authz/allow with the input document the plugin would build
//         (autocannon), so both paths evaluate the same policy over the same input;
//   gRPC  envoy.service.auth.v3.Authorization/Check with the CheckRequest Envoy would send
//         (@grpc/grpc-js client), the plugin building the input from it;
//   bare  the same Check calls to a bare @grpc/grpc-js handler answering a constant: what the
//         gRPC transport costs by itself on this machine (the ceiling of the gRPC path).
// Decisions are checked first (allowed and denied, both paths agree). Prints decisions/s and
// the server's CPU per decision (process.cpuUsage in the child), which the other jobs of a
// shared machine disturb less than throughput.
//
//   npx tsx bench/envoy-check.ts [seconds per run, default 10]

import autocannon from 'autocannon';
import * as grpc from '@grpc/grpc-js';
import { fork, type ChildProcess } from 'node:child_process';
import { bundle } from './lib/bundle.js';
import { fail } from './lib/regolith.js';
import { envoyRoot } from '../src/integrations/envoy/proto.js';
import { checkInput } from '../src/integrations/envoy/input.js';
import { toJSONText, type Value } from '../src/value/index.js';

const DURATION = Number(process.argv[2] ?? 10);
const IN_FLIGHT = 10;

const root = envoyRoot();
const CheckRequest = root.lookupType('envoy.service.auth.v3.CheckRequest');
const CheckResponse = root.lookupType('envoy.service.auth.v3.CheckResponse');

/** An HTTP request as Envoy's ext_authz filter describes it. */
function request(i: number): Record<string, unknown> {
  const scope = ['orders', 'invoices', 'reports'][i % 3];
  return {
    attributes: {
      source: { address: { socket_address: { address: '10.0.0.7', port_value: 40000 + (i % 1000) } } },
      destination: { address: { socket_address: { address: '10.0.0.9', port_value: 8080 } } },
      request: {
        time: { seconds: 1764158400 + i },
        http: { id: String(i), method: 'GET', path: `/api/${scope}?page=${i % 5}`, host: 'shop.test', scheme: 'http', protocol: 'HTTP/1.1', headers: { ':authority': 'shop.test', 'x-user': `u${i % 1000}`, accept: 'application/json', 'user-agent': 'bench' } },
      },
    },
  };
}

const REQUESTS = Array.from({ length: 256 }, (_, i) => request(i));
const ENCODED = REQUESTS.map((r) => Buffer.from(CheckRequest.encode(CheckRequest.fromObject(r)).finish()));
const REST_BODIES = REQUESTS.map((r) => `{"input":${toJSONText(checkInput(CheckRequest, CheckRequest.decode(CheckRequest.encode(CheckRequest.fromObject(r)).finish()) as unknown as Record<string, unknown>, { skipRequestBodyParse: false }) as Value)}}`);

interface Child {
  proc: ChildProcess;
  url: string;
  grpcPort: number;
  barePort: number;
}

async function startChild(): Promise<Child> {
  const proc = fork(bundle('envoy-server.ts'), ['serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const m = await new Promise<{ url: string; grpcPort: number; barePort: number }>((resolve) => proc.once('message', (x) => resolve(x as { url: string; grpcPort: number; barePort: number })));
  return { proc, ...m };
}

function cpu(c: Child): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      const u = (m as { cpu?: NodeJS.CpuUsage }).cpu;
      if (!u) return;
      c.proc.off('message', on);
      resolve(u.user + u.system);
    };
    c.proc.on('message', on);
    c.proc.send({ cpu: true });
  });
}

function checkOnce(client: grpc.Client, bytes: Buffer): Promise<number> {
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest('/envoy.service.auth.v3.Authorization/Check', (b: Buffer) => b, (b: Buffer) => (CheckResponse.decode(b) as unknown as { status?: { code?: number } }).status?.code ?? 0, bytes, (err, code) => (err ? reject(err) : resolve(code!))),
  );
}

async function grpcRun(c: Child, client: grpc.Client, seconds: number): Promise<{ count: number; cpuUs: number }> {
  const c0 = await cpu(c);
  const end = Date.now() + seconds * 1000;
  let count = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, k) => {
      for (let i = k; Date.now() < end; i += IN_FLIGHT) {
        await checkOnce(client, ENCODED[i % ENCODED.length]!);
        count++;
      }
    }),
  );
  return { count, cpuUs: (await cpu(c)) - c0 };
}

async function restRun(c: Child, seconds: number): Promise<{ count: number; cpuUs: number }> {
  const c0 = await cpu(c);
  const result = await autocannon({
    url: c.url,
    connections: IN_FLIGHT,
    duration: seconds,
    // autocannon cycles through the list: every connection sends each request in turn
    requests: REST_BODIES.map((body) => ({ method: 'POST', path: '/v1/data/envoy/authz/allow', headers: { 'content-type': 'application/json' }, body })),
  });
  if (result.non2xx > 0 || result.errors > 0) fail(`REST: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { count: result.requests.total, cpuUs: (await cpu(c)) - c0 };
}

async function main(): Promise<void> {
  const c = await startChild();
  const client = new grpc.Client(`127.0.0.1:${c.grpcPort}`, grpc.credentials.createInsecure());
  const bareClient = new grpc.Client(`127.0.0.1:${c.barePort}`, grpc.credentials.createInsecure());
  try {
    // correctness: both paths give the same decision for each request, some allow and some deny
    let allowed = 0;
    for (let i = 0; i < REQUESTS.length; i++) {
      const code = await checkOnce(client, ENCODED[i]!);
      const rest = (await (await fetch(`${c.url}/v1/data/envoy/authz/allow`, { method: 'POST', body: REST_BODIES[i] })).json()) as { result: boolean };
      if ((code === 0) !== rest.result) fail(`request ${i}: gRPC says ${code === 0}, REST says ${rest.result}`);
      if (rest.result) allowed++;
    }
    if (allowed === 0 || allowed === REQUESTS.length) fail(`expected both allowed and denied requests, got ${allowed} of ${REQUESTS.length} allowed`);
    console.log(`decisions agree on ${REQUESTS.length} requests (${allowed} allowed); ${IN_FLIGHT} in flight, ${DURATION} s per run`);
    await grpcRun(c, client, 2); // warm-up
    await grpcRun(c, bareClient, 2);
    await restRun(c, 2);
    const rows: string[] = [];
    for (let round = 1; round <= 2; round++) {
      const b = await grpcRun(c, bareClient, DURATION);
      const g = await grpcRun(c, client, DURATION);
      const r = await restRun(c, DURATION);
      rows.push(`| ${round} | bare grpc-js (constant answer) | ${Math.round(b.count / DURATION)} | ${Math.round(b.cpuUs / b.count)} µs |`);
      rows.push(`| ${round} | gRPC Check | ${Math.round(g.count / DURATION)} | ${Math.round(g.cpuUs / g.count)} µs |`);
      rows.push(`| ${round} | REST POST /v1/data | ${Math.round(r.count / DURATION)} | ${Math.round(r.cpuUs / r.count)} µs |`);
    }
    console.log('| round | path | decisions/s | server CPU per decision |\n|---|---|---|---|\n' + rows.join('\n'));
  } finally {
    client.close();
    bareClient.close();
    c.proc.kill();
  }
}

void main();
