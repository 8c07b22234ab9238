// The distributed_tracing section, read as OPA reads it (internal/distributedtracing): a
// type of "grpc" or "http" turns tracing on, anything else is an error, and no type (or "")
// leaves it off. The defaults are OPA's; the whole section is checked even when tracing is
// off, so a typo fails at start-up rather than when someone sets the type.

import { fail, Section } from '../config/section.js';

export interface TracingResource {
  service_version?: string;
  service_instance_id?: string;
  service_namespace?: string;
  deployment_environment?: string;
}

export interface BatchSpanProcessorOptions {
  blocking: boolean;
  batch_timeout_ms: number;
  export_timeout_ms: number;
  max_export_batch_size: number;
  max_queue_size: number;
}

export interface TracingConfig {
  type: 'grpc' | 'http';
  /** host:port of the OTLP receiver (OPA's defaults: localhost:4317 for grpc, localhost:4318 for http). */
  address: string;
  service_name: string;
  /** 0-100, of the traces that start here (a sampled incoming traceparent is followed). */
  sample_percentage: number;
  encryption: 'off' | 'tls' | 'mtls';
  allow_insecure_tls: boolean;
  tls_cert_file?: string;
  tls_private_key_file?: string;
  tls_ca_cert_file?: string;
  resource: TracingResource;
  batch_span_processor_options: BatchSpanProcessorOptions;
}

const DEFAULT_ADDRESS = { grpc: 'localhost:4317', http: 'localhost:4318' } as const;
const KEY = 'distributed_tracing';

/** The validated section, or undefined when tracing is off (no section, or no type). */
export function distributedTracing(v: unknown): TracingConfig | undefined {
  if (v === undefined || v === null) return undefined;
  const s = Section.of(KEY, v);
  const type = s.str('type') ?? '';
  if (type !== '' && type !== 'grpc' && type !== 'http') fail(`${KEY}.type`, `unknown type "${type}", must be "grpc", "http" or "" (unset)`);
  const address = s.str('address') ?? '';
  const service_name = s.str('service_name') || 'opa';
  const pct = s.raw('sample_percentage');
  if (pct !== undefined && (typeof pct !== 'number' || !(pct >= 0 && pct <= 100))) {
    fail(`${KEY}.sample_percentage`, `unsupported sample percentage ${JSON.stringify(pct)} (want a number from 0 to 100)`);
  }
  const encryption = s.str('encryption') || 'off';
  if (encryption !== 'off' && encryption !== 'tls' && encryption !== 'mtls') {
    fail(`${KEY}.encryption`, `unsupported encryption scheme "${encryption}" (want "off", "tls" or "mtls")`);
  }
  const allow_insecure_tls = s.bool('allow_insecure_tls', false);
  const tls_cert_file = s.str('tls_cert_file') || undefined;
  const tls_private_key_file = s.str('tls_private_key_file') || undefined;
  const tls_ca_cert_file = s.str('tls_ca_cert_file') || undefined;
  if ((tls_cert_file === undefined) !== (tls_private_key_file === undefined)) {
    fail(KEY, 'tls_cert_file and tls_private_key_file must be specified together');
  }
  if (encryption === 'mtls' && tls_cert_file === undefined) fail(`${KEY}.tls_cert_file`, 'required but not supplied (encryption is "mtls")');

  const r = s.sub('resource');
  const resource: TracingResource = {};
  for (const k of ['service_version', 'service_instance_id', 'service_namespace', 'deployment_environment'] as const) {
    const x = r.str(k);
    if (x) resource[k] = x;
  }
  r.done();

  const b = s.sub('batch_span_processor_options');
  const batch_span_processor_options: BatchSpanProcessorOptions = {
    blocking: b.bool('blocking', false),
    batch_timeout_ms: b.int('batch_timeout_ms') ?? 5000,
    export_timeout_ms: b.int('export_timeout_ms') ?? 30000,
    max_export_batch_size: b.int('max_export_batch_size') ?? 512,
    max_queue_size: b.int('max_queue_size') ?? 2048,
  };
  b.done();
  s.done();

  if (type === '') return undefined;
  return {
    type,
    address: address || DEFAULT_ADDRESS[type],
    service_name,
    sample_percentage: (pct as number | undefined) ?? 100,
    encryption,
    allow_insecure_tls,
    tls_cert_file,
    tls_private_key_file,
    tls_ca_cert_file,
    resource,
    batch_span_processor_options,
  };
}
