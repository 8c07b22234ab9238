// The other services on the plugin's port: grpc.health.v1.Health and, with
// enable-reflection, server reflection (what grpcurl uses to list and describe); and a Check
// whose bytes the test writes itself from the reference's field numbers, so that the
// plugin's descriptors are checked against Envoy's wire format and not only against themselves.

import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import * as descriptor from 'protobufjs/ext/descriptor/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRaw, startEnvoy, type Running } from './helpers.js';

const POLICY = `package envoy.authz
allow if {
  input.attributes.request.http.method == "GET"
  input.attributes.request.http.headers["x-k"] == "v"
  input.parsed_path == ["ok"]
  input.attributes.source.address.socketAddress.portValue == 9
}
`;

const testRoot = protobuf.parse(`
syntax = "proto3";
package t;
message HealthCheckRequest { string service = 1; }
message HealthCheckResponse { int32 status = 1; }
message ServerReflectionRequest { string host = 1; oneof message_request { string file_by_filename = 3; string file_containing_symbol = 4; string list_services = 7; } }
message ServiceResponse { string name = 1; }
message ListServiceResponse { repeated ServiceResponse service = 1; }
message FileDescriptorResponse { repeated bytes file_descriptor_proto = 1; }
message ErrorResponse { int32 error_code = 1; string error_message = 2; }
message ServerReflectionResponse {
  string valid_host = 1;
  oneof message_response { FileDescriptorResponse file_descriptor_response = 4; ListServiceResponse list_services_response = 6; ErrorResponse error_response = 7; }
}
`, { keepCase: true }).root;
const T = (n: string) => testRoot.lookupType(`t.${n}`);

let r: Running;
beforeAll(async () => {
  r = await startEnvoy(POLICY, { 'enable-reflection': true });
});
afterAll(async () => {
  await r.close();
});

function health(client: grpc.Client, service: string) {
  const bytes = T('HealthCheckRequest').encode({ service }).finish();
  return callRaw(client, '/grpc.health.v1.Health/Check', bytes, (b) => T('HealthCheckResponse').toObject(T('HealthCheckResponse').decode(b)));
}

describe('grpc.health.v1.Health', () => {
  it('Check: SERVING for the server and for the authorization service; NOT_FOUND for others', async () => {
    expect((await health(r.client, '')).response).toEqual({ status: 1 });
    expect((await health(r.client, 'envoy.service.auth.v3.Authorization')).response).toEqual({ status: 1 });
    expect((await health(r.client, 'nope')).error?.code).toBe(grpc.status.NOT_FOUND);
  });

  it('Watch: the current status first', async () => {
    const call = r.client.makeServerStreamRequest('/grpc.health.v1.Health/Watch', (m: Uint8Array) => Buffer.from(m), (b: Buffer) => T('HealthCheckResponse').toObject(T('HealthCheckResponse').decode(b)), T('HealthCheckRequest').encode({ service: '' }).finish());
    call.on('error', () => {}); // the cancel below ends it with CANCELLED
    const first = await new Promise((resolve) => call.once('data', resolve));
    call.cancel();
    expect(first).toEqual({ status: 1 });
  });
});

async function reflect(client: grpc.Client, request: Record<string, unknown>, version = 'v1alpha'): Promise<Record<string, any>> {
  const call = client.makeBidiStreamRequest(`/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`, (m: Uint8Array) => Buffer.from(m), (b: Buffer) => T('ServerReflectionResponse').toObject(T('ServerReflectionResponse').decode(b), { oneofs: true }));
  const answer = new Promise<Record<string, any>>((resolve, reject) => {
    call.once('data', resolve);
    call.once('error', reject);
  });
  call.write(T('ServerReflectionRequest').encode(T('ServerReflectionRequest').fromObject(request)).finish());
  const out = await answer;
  call.end();
  return out;
}

describe('reflection', () => {
  it('lists the services (v1alpha and v1)', async () => {
    for (const v of ['v1alpha', 'v1']) {
      const res = await reflect(r.client, { list_services: '*' }, v);
      const names = (res['list_services_response']['service'] as { name: string }[]).map((s) => s.name);
      expect(names).toEqual(expect.arrayContaining(['envoy.service.auth.v3.Authorization', 'grpc.health.v1.Health']));
    }
  });

  it('describes the Authorization service with files a client can link', async () => {
    const res = await reflect(r.client, { file_containing_symbol: 'envoy.service.auth.v3.Authorization' });
    const files = (res['file_descriptor_response']['file_descriptor_proto'] as Uint8Array[]).map((b) => descriptor.FileDescriptorProto.decode(b));
    const built = (protobuf.Root as unknown as { fromDescriptor(d: unknown): protobuf.Root }).fromDescriptor({ file: files });
    built.resolveAll();
    const check = built.lookupService('envoy.service.auth.v3.Authorization').methods['Check']!;
    expect(check.requestType).toMatch(/CheckRequest$/);
    const http = built.lookupType('envoy.service.auth.v3.AttributeContext.HttpRequest');
    expect(http.fields['raw_body']?.id).toBe(12);
    expect(http.fields['headers']?.id).toBe(3);
  });

  it('is off unless enable-reflection', async () => {
    const e = await startEnvoy(POLICY);
    try {
      await expect(reflect(e.client, { list_services: '*' })).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED });
    } finally {
      await e.close();
    }
  });
});

describe('the wire format', () => {
  it('a CheckRequest written field by field from the reference is read as Envoy means it', async () => {
    const w = protobuf.Writer.create();
    // CheckRequest.attributes = 1 { source = 1 { address = 1 { socket_address = 1 { address = 2, port_value = 3 } } }, request = 4 { http = 2 { method = 2, headers = 3, path = 4 } } }
    const sock = protobuf.Writer.create().uint32((2 << 3) | 2).string('1.2.3.4').uint32(3 << 3).uint32(9).finish();
    const address = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(sock).finish();
    const peer = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(address).finish();
    const entry = protobuf.Writer.create().uint32((1 << 3) | 2).string('x-k').uint32((2 << 3) | 2).string('v').finish();
    const http = protobuf.Writer.create().uint32((2 << 3) | 2).string('GET').uint32((3 << 3) | 2).bytes(entry).uint32((4 << 3) | 2).string('/ok').finish();
    const request = protobuf.Writer.create().uint32((2 << 3) | 2).bytes(http).finish();
    const attrs = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(peer).uint32((4 << 3) | 2).bytes(request).finish();
    const bytes = w.uint32((1 << 3) | 2).bytes(attrs).finish();
    // CheckResponse.status = 1 { code = 1 }: read back by hand too
    const raw = await new Promise<Buffer>((resolve, reject) =>
      r.client.makeUnaryRequest('/envoy.service.auth.v3.Authorization/Check', (b: Buffer) => b, (b: Buffer) => b, Buffer.from(bytes), (err, res) => (err ? reject(err) : resolve(res!))),
    );
    const reader = protobuf.Reader.create(raw);
    let code = -1;
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag >>> 3 === 1) {
        const status = protobuf.Reader.create(reader.bytes());
        code = 0;
        while (status.pos < status.len) {
          const t = status.uint32();
          if (t >>> 3 === 1) code = status.int32();
          else status.skipType(t & 7);
        }
      } else reader.skipType(tag & 7);
    }
    expect(code).toBe(0); // the policy allowed it: every field arrived where it should
    expect(r.decisions.at(-1)!.result).toBe(true);
  });
});
