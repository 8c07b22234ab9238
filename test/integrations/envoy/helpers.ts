// A real gRPC client over loopback for the Envoy plugin's tests: Check, health and the raw
// call (bytes in, status out) for malformed requests. Messages are encoded with the plugin's
// own descriptors except where a test writes the wire bytes itself.

import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import type { DecisionEvent } from '../../../src/engine/index.js';
import { Registry } from 'prom-client';
import { SILENT_LOGGER } from '../../../src/plugins/plugin.js';
import { validateEnvoy } from '../../../src/integrations/envoy/config.js';
import { EnvoyPlugin } from '../../../src/integrations/envoy/plugin.js';
import { envoyRoot } from '../../../src/integrations/envoy/proto.js';

export const root = envoyRoot();
const CheckRequest = root.lookupType('envoy.service.auth.v3.CheckRequest');
const CheckResponse = root.lookupType('envoy.service.auth.v3.CheckResponse');

export interface Running {
  plugin: EnvoyPlugin;
  client: grpc.Client;
  decisions: DecisionEvent[];
  registry: Registry;
  engine: RegolithEngine;
  close(): Promise<void>;
}

/** The plugin on 127.0.0.1 (a free port) over an engine holding `policy`, decisions captured. */
export async function startEnvoy(policy: string, settings: Record<string, unknown> = {}): Promise<Running> {
  const engine = new RegolithEngine();
  await engine.putPolicy('policy.rego', policy);
  const decisions: DecisionEvent[] = [];
  const registry = new Registry();
  const plugin = new EnvoyPlugin(validateEnvoy({ addr: '127.0.0.1:0', ...settings }), {
    evaluate: (ref, o) => engine.evaluate(ref, o),
    decisionLogger: () => async (e) => void decisions.push(e),
    registry,
    logger: SILENT_LOGGER,
  });
  await plugin.start();
  const client = new grpc.Client(`127.0.0.1:${plugin.port}`, grpc.credentials.createInsecure());
  return {
    plugin,
    client,
    decisions,
    registry,
    engine,
    close: async () => {
      client.close();
      await plugin.stop();
    },
  };
}

export interface CallResult {
  error?: grpc.ServiceError;
  response?: Record<string, unknown>;
}

/** A unary call with the request already encoded. */
export function callRaw(client: grpc.Client, path: string, bytes: Uint8Array, decode: (b: Buffer) => Record<string, unknown>): Promise<CallResult> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      decode,
      Buffer.from(bytes),
      (error: grpc.ServiceError | null, response?: Record<string, unknown>) => resolve(error ? { error } : { response }),
    );
  });
}

/** The CheckResponse as plain JSON (snake_case names, enums as numbers, Struct as protobufjs writes it). */
export const decodeCheckResponse = (b: Buffer): Record<string, unknown> => CheckResponse.toObject(CheckResponse.decode(b), { defaults: false, longs: String, oneofs: true }) as Record<string, unknown>;

/** Check with a CheckRequest given as a plain object (snake_case names). */
export function check(client: grpc.Client, request: Record<string, unknown>): Promise<CallResult> {
  const err = CheckRequest.verify(request);
  if (err) throw new Error(err);
  const bytes = CheckRequest.encode(CheckRequest.fromObject(request)).finish();
  return callRaw(client, '/envoy.service.auth.v3.Authorization/Check', bytes, decodeCheckResponse);
}

/** A CheckRequest for an HTTP request, the way Envoy's ext_authz filter fills it. */
export function httpRequest(http: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    attributes: {
      source: { address: { socket_address: { address: '10.0.0.7', port_value: 53412 } } },
      destination: { address: { socket_address: { address: '10.0.0.9', port_value: 8080 } } },
      request: { time: { seconds: 1764158400, nanos: 500000000 }, http: { id: '42', protocol: 'HTTP/1.1', scheme: 'http', host: 'example.test', ...http } },
      ...extra,
    },
  };
}

/** The Struct protobufjs decodes back to plain JSON. */
export function structJSON(s: unknown): unknown {
  const fields = (s as { fields?: Record<string, Record<string, unknown>> } | undefined)?.fields ?? {};
  const value = (v: Record<string, unknown>): unknown => {
    if ('stringValue' in v) return v['stringValue'];
    if ('numberValue' in v) return v['numberValue'];
    if ('boolValue' in v) return v['boolValue'];
    if ('structValue' in v) return structJSON(v['structValue']);
    if ('listValue' in v) return ((v['listValue'] as { values?: Record<string, unknown>[] }).values ?? []).map(value);
    return null;
  };
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, value(v)]));
}

export { protobuf };
