// distributed_tracing as OPA reads it: off unless a type is set, OPA's defaults, and errors
// naming the key for every value OPA would reject.

import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/plugins/config/index.js';

const tracing = (dt: unknown) => validateConfig({ distributed_tracing: dt }).distributed_tracing;

describe('distributed_tracing configuration', () => {
  it('is off without the section or without a type', () => {
    expect(validateConfig({}).distributed_tracing).toBeUndefined();
    expect(tracing({})).toBeUndefined();
    expect(tracing({ type: '', service_name: 'x' })).toBeUndefined();
  });

  it("fills OPA's defaults, the address by type", () => {
    expect(tracing({ type: 'grpc' })).toEqual({
      type: 'grpc',
      address: 'localhost:4317',
      service_name: 'opa',
      sample_percentage: 100,
      encryption: 'off',
      allow_insecure_tls: false,
      tls_cert_file: undefined,
      tls_private_key_file: undefined,
      tls_ca_cert_file: undefined,
      resource: {},
      batch_span_processor_options: { blocking: false, batch_timeout_ms: 5000, export_timeout_ms: 30000, max_export_batch_size: 512, max_queue_size: 2048 },
    });
    expect(tracing({ type: 'http' })?.address).toBe('localhost:4318');
  });

  it('keeps what is set, resource attributes included', () => {
    const c = tracing({
      type: 'http',
      address: '127.0.0.1:9999',
      service_name: 'authz',
      sample_percentage: 12.5,
      encryption: 'tls',
      allow_insecure_tls: true,
      tls_ca_cert_file: '/ca.pem',
      resource: { service_version: '1.2', service_instance_id: 'i-1', service_namespace: 'ns', deployment_environment: 'prod' },
      batch_span_processor_options: { batch_timeout_ms: 100 },
    });
    expect(c).toMatchObject({ address: '127.0.0.1:9999', service_name: 'authz', sample_percentage: 12.5, encryption: 'tls', allow_insecure_tls: true, tls_ca_cert_file: '/ca.pem' });
    expect(c?.resource).toEqual({ service_version: '1.2', service_instance_id: 'i-1', service_namespace: 'ns', deployment_environment: 'prod' });
    expect(c?.batch_span_processor_options.batch_timeout_ms).toBe(100);
  });

  it.each([
    [{ type: 'zipkin' }, /distributed_tracing\.type: unknown type "zipkin", must be "grpc", "http" or "" \(unset\)/],
    [{ type: 'grpc', sample_percentage: 101 }, /distributed_tracing\.sample_percentage: unsupported sample percentage 101/],
    [{ type: 'grpc', sample_percentage: -1 }, /distributed_tracing\.sample_percentage/],
    [{ type: 'grpc', sample_percentage: '50' }, /distributed_tracing\.sample_percentage/],
    [{ type: 'grpc', encryption: 'ssl' }, /distributed_tracing\.encryption: unsupported encryption scheme "ssl"/],
    [{ type: 'grpc', encryption: 'mtls' }, /distributed_tracing\.tls_cert_file: required but not supplied/],
    [{ type: 'grpc', tls_cert_file: '/c.pem' }, /tls_cert_file and tls_private_key_file must be specified together/],
    [{ type: 'grpc', resource: { service_versoin: '1' } }, /distributed_tracing\.resource\.service_versoin: unknown configuration key/],
    [{ type: 'grpc', batch_span_processor_options: { max_queue_size: -5 } }, /max_queue_size: expected a non-negative integer/],
    [{ typ: 'grpc' }, /distributed_tracing\.typ: unknown configuration key/],
    // checked even when tracing is off
    [{ encryption: 'ssl' }, /distributed_tracing\.encryption/],
    ['grpc', /distributed_tracing: expected an object/],
  ])('rejects %j', (dt, msg) => {
    expect(() => tracing(dt)).toThrow(msg);
  });
});
