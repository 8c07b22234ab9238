// The server side of bench/envoy-check.ts, in its own process: one RegolithEngine holding
// an Envoy gateway policy and 1,000 users, answered both by the REST API (startServer) and
// by the Envoy plugin (plugins.envoy_ext_authz_grpc through the plugin manager, as
// `regolith run` starts it); and, for scale, a bare @grpc/grpc-js server answering every
// Check with a constant (the transport's own cost). Reports its URL and gRPC ports, and its
// CPU time when asked.

import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { startServer } from '../src/server/index.js';
import { RegolithEngine } from '../src/engine/store-engine.js';
import { validateConfig } from '../src/plugins/config/index.js';
import { PluginManager } from '../src/plugins/manager.js';
import { registerIntegrations } from '../src/integrations/index.js';
import type { EnvoyPlugin } from '../src/integrations/envoy/index.js';

export const GATEWAY_POLICY = `package envoy.authz

default allow := false

http := input.attributes.request.http

allow if {
  http.method == "GET"
  input.parsed_path[0] == "api"
  user := data.users[http.headers["x-user"]]
  user.active
  input.parsed_path[1] in user.scopes
}
`;

export function gatewayUsers(): Record<string, unknown> {
  const users: Record<string, unknown> = {};
  for (let i = 0; i < 1000; i++) users[`u${i}`] = { active: i % 7 !== 0, scopes: ['orders', 'invoices', 'reports'].slice(0, 1 + (i % 3)) };
  return users;
}

async function main(): Promise<void> {
  registerIntegrations();
  const config = validateConfig({ plugins: { envoy_ext_authz_grpc: { addr: '127.0.0.1:0' } } });
  const engine = new RegolithEngine();
  await engine.putPolicy('envoy.rego', GATEWAY_POLICY);
  engine.store.transactSync((txn) => txn.write('add', ['users'], gatewayUsers() as never));
  const manager = new PluginManager({ config, engine });
  await manager.start();
  const s = await startServer({ addr: '127.0.0.1:0', engine, config: config.raw, logger: pino({ level: 'warn' }), ...manager.serverOptions() });
  // the ceiling: a bare @grpc/grpc-js unary handler answering a constant, undecoded
  const bare = new grpc.Server();
  const ok = Buffer.from([0x0a, 0x00]); // CheckResponse{status: {}}: OK
  const raw = (b: Buffer) => b;
  bare.addService(
    { Check: { path: '/envoy.service.auth.v3.Authorization/Check', requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw } },
    { Check: (_call: unknown, cb: grpc.sendUnaryData<Buffer>) => cb(null, ok) },
  );
  const barePort = await new Promise<number>((resolve, reject) => bare.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  process.on('message', (m) => {
    if ((m as { cpu?: boolean }).cpu) process.send?.({ cpu: process.cpuUsage() });
  });
  process.send?.({ url: s.url, grpcPort: (manager.custom[0] as EnvoyPlugin).port, barePort });
}

if (process.argv[2] === 'serve') void main();
