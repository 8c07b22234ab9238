// FileDescriptorProtos for gRPC reflection, and a proto-descriptor file read for gRPC
// request bodies. protobufjs writes one file per package and leaves their imports out;
// reflection clients (grpcurl) link the files through those imports, so each file lists the
// files whose types it uses.

import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import * as descriptorModule from 'protobufjs/ext/descriptor/index.js';
import type { Value } from '../../value/index.js';
import { toProtoJSON } from './protojson.js';
import { RequestParseError } from './request-error.js';
import type { GrpcBodyParser } from './body.js';

// A CommonJS module: under Node's own ESM loader its exports are found on `default` only.
const descriptor = (descriptorModule as unknown as { default?: typeof descriptorModule }).default ?? descriptorModule;

interface FileProto {
  name: string;
  package?: string;
  dependency: string[];
  messageType?: MessageProto[];
  service?: { method?: { inputType?: string; outputType?: string }[] }[];
}
interface MessageProto {
  field?: { typeName?: string }[];
  nestedType?: MessageProto[];
}

/** The encoded FileDescriptorProto of every file in the root, imports filled in. */
export function fileDescriptorProtos(root: protobuf.Root): Buffer[] {
  const set = (root as unknown as { toDescriptor(edition: string): { file: FileProto[] } }).toDescriptor('proto3');
  const byPackage = new Map(set.file.map((f) => [f.package ?? '', f.name]));
  const fileOf = (typeName: string): string | undefined => {
    // ".a.b.C" or ".a.b.C.D": the longest package that prefixes it
    let best: string | undefined;
    let len = -1;
    for (const [pkg, name] of byPackage) {
      if (typeName.startsWith(`.${pkg}.`) && pkg.length > len) [best, len] = [name, pkg.length];
    }
    return best;
  };
  for (const f of set.file) {
    const deps = new Set<string>();
    const note = (t?: string) => {
      const file = t ? fileOf(t) : undefined;
      if (file && file !== f.name) deps.add(file);
    };
    const visit = (m: MessageProto) => {
      for (const fd of m.field ?? []) note(fd.typeName);
      for (const n of m.nestedType ?? []) visit(n);
    };
    for (const m of f.messageType ?? []) visit(m);
    for (const s of f.service ?? []) {
      for (const m of s.method ?? []) {
        note(m.inputType);
        note(m.outputType);
      }
    }
    f.dependency = [...deps];
  }
  return set.file.map((f) => Buffer.from(descriptor.FileDescriptorProto.encode(f as unknown as protobuf.Message).finish()));
}

/**
 * proto-descriptor: a FileDescriptorSet (protoc --descriptor_set_out --include_imports).
 * The parser decodes the first framed message of /<service>/<method> as its input type;
 * an unknown service or method, or a compressed frame, leaves the body unparsed.
 */
export function grpcBodyParser(file: string): GrpcBodyParser {
  let root: protobuf.Root;
  try {
    const set = descriptor.FileDescriptorSet.decode(readFileSync(file));
    root = (protobuf.Root as unknown as { fromDescriptor(d: unknown): protobuf.Root }).fromDescriptor(set);
    root.resolveAll();
  } catch (e) {
    throw new Error(`proto-descriptor ${file}: not a FileDescriptorSet: ${(e as Error).message}`);
  }
  return (framed, service, method) => {
    if (framed[0] !== 0) return undefined; // compressed: not supported, as in OPA
    const size = Buffer.from(framed.buffer, framed.byteOffset, framed.byteLength).readUInt32BE(1);
    if (size > framed.length - 5) return { truncated: true };
    let svc: protobuf.Service | undefined;
    try {
      svc = root.lookupService(service);
    } catch {
      return undefined;
    }
    const m = svc.methods[method];
    if (!m || m.requestStream) return undefined;
    m.resolve();
    const type = m.resolvedRequestType!;
    let value: Value;
    try {
      value = toProtoJSON(type, type.decode(framed.subarray(5, 5 + size)) as unknown as Record<string, unknown>);
    } catch (e) {
      throw new RequestParseError((e as Error).message);
    }
    return { value, truncated: false };
  };
}
