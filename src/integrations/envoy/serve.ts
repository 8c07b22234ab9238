// The gRPC server of the plugin (loaded only when the plugin starts): @grpc/grpc-js serving
// envoy.service.auth.v3.Authorization/Check, grpc.health.v1.Health (Check and Watch) and,
// with enable-reflection, gRPC server reflection (@grpc/reflection, v1 and v1alpha).

import { rmSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import type protobuf from 'protobufjs';
import type { PluginContext } from '../../plugins/plugin-types.js';
import { listenTarget, type EnvoySettings } from './config.js';
import { envoyRoot } from './proto.js';
import { fileDescriptorProtos, grpcBodyParser } from './descriptors.js';
import { runCheck, type CheckDeps } from './check.js';
import { performanceMetrics } from './metrics.js';
import { inServerSpan } from './check-span.js';

export interface RunningServer {
  port: number;
  stop(): Promise<void>;
}

const AUTHORIZATION = 'envoy.service.auth.v3.Authorization';
const SERVING = 1;
const SERVICE_UNKNOWN = 3;

function method<Req, Res>(root: protobuf.Root, path: string, req: string, res: string, responseStream = false): grpc.MethodDefinition<Req, Res> {
  const reqType = root.lookupType(req);
  const resType = root.lookupType(res);
  return {
    path,
    requestStream: false,
    responseStream,
    requestSerialize: (m: Req) => Buffer.from(reqType.encode(reqType.fromObject(m as object)).finish()),
    requestDeserialize: (b: Buffer) => reqType.decode(b) as unknown as Req,
    responseSerialize: (m: Res) => Buffer.from(resType.encode(resType.fromObject(m as object)).finish()),
    responseDeserialize: (b: Buffer) => resType.toObject(resType.decode(b)) as Res,
  };
}

type Msg = Record<string, unknown>;

export async function serve(settings: EnvoySettings, ctx: PluginContext): Promise<RunningServer> {
  const root = envoyRoot();
  const server = new grpc.Server({
    'grpc.max_receive_message_length': settings.maxRecvMsgSize,
    'grpc.max_send_message_length': settings.maxSendMsgSize,
  });
  const deps: CheckDeps = {
    settings,
    ctx,
    checkRequest: root.lookupType('envoy.service.auth.v3.CheckRequest'),
    grpcBody: settings.protoDescriptor ? grpcBodyParser(settings.protoDescriptor) : undefined,
    metrics: settings.enablePerformanceMetrics ? performanceMetrics(ctx.registry, settings.durationBuckets) : undefined,
  };

  server.addService(
    { Check: method<Msg, Msg>(root, `/${AUTHORIZATION}/Check`, 'envoy.service.auth.v3.CheckRequest', 'envoy.service.auth.v3.CheckResponse') },
    {
      Check: (call: grpc.ServerUnaryCall<Msg, Msg>, cb: grpc.sendUnaryData<Msg>) =>
        inServerSpan(`/${AUTHORIZATION}/Check`, call, cb, (answer) => {
          runCheck(deps, call.request).then(
            (o) => (o.error ? answer({ code: o.error.code, details: o.error.message }) : answer(null, o.response)),
            (err: Error) => answer({ code: grpc.status.INTERNAL, details: err.message }),
          );
        }),
    },
  );

  // Health: the server as a whole ("") and the authorization service serve while it runs.
  const known = (service: string) => service === '' || service === AUTHORIZATION;
  server.addService(
    {
      Check: method<Msg, Msg>(root, '/grpc.health.v1.Health/Check', 'grpc.health.v1.HealthCheckRequest', 'grpc.health.v1.HealthCheckResponse'),
      Watch: method<Msg, Msg>(root, '/grpc.health.v1.Health/Watch', 'grpc.health.v1.HealthCheckRequest', 'grpc.health.v1.HealthCheckResponse', true),
    },
    {
      Check: (call: grpc.ServerUnaryCall<Msg, Msg>, cb: grpc.sendUnaryData<Msg>) => {
        const service = (call.request['service'] as string | undefined) ?? '';
        if (known(service)) cb(null, { status: SERVING });
        else cb({ code: grpc.status.NOT_FOUND, details: `unknown service ${service}` });
      },
      Watch: (call: grpc.ServerWritableStream<Msg, Msg>) => {
        const service = (call.request['service'] as string | undefined) ?? '';
        call.write({ status: known(service) ? SERVING : SERVICE_UNKNOWN });
      },
    },
  );

  if (settings.enableReflection) {
    const pkg = { envoy: { fileDescriptorProtos: fileDescriptorProtos(root) } };
    new ReflectionService(pkg as unknown as ConstructorParameters<typeof ReflectionService>[0]).addToServer(server);
  }

  const target = listenTarget(settings.addr);
  // A socket file left by an earlier run is removed first, as OPA does.
  if (target.startsWith('unix:') && !target.startsWith('unix:@')) rmSync(target.slice('unix:'.length).replace(/^\/\/(?=\/)/, ''), { force: true });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(new Error(`plugins.envoy_ext_authz_grpc: listen on ${settings.addr}: ${err.message}`)) : resolve(p)));
  });
  ctx.logger.info({ addr: settings.addr, path: settings.path, 'dry-run': settings.dryRun, 'enable-reflection': settings.enableReflection }, 'Starting gRPC server.');

  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 2000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
