// plugins.envoy_ext_authz_grpc as the configuration reads it, and the plugin run by the
// plugin manager from a whole configuration (what `regolith run -c` does).

import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { registerIntegrations } from '../../../src/integrations/index.js';
import { listenTarget, pathRef, validateEnvoy } from '../../../src/integrations/envoy/config.js';
import { EnvoyPlugin } from '../../../src/integrations/envoy/plugin.js';
import { check, httpRequest } from './helpers.js';

registerIntegrations();

describe('settings', () => {
  it("OPA's defaults", () => {
    const s = validateEnvoy({});
    expect(s).toMatchObject({ addr: ':9191', path: 'envoy/authz/allow', ref: ['envoy', 'authz', 'allow'], dryRun: false, enableReflection: false, skipRequestBodyParse: false, maxRecvMsgSize: 4194304 });
  });

  it('path segments: empty ones skipped, integers as numbers', () => {
    expect(pathRef('/a//b/0/c')).toEqual(['a', 'b', 0, 'c']);
  });

  it('the deprecated query, when it is a reference into data', () => {
    expect(validateEnvoy({ query: 'data.envoy.authz.allow' }).path).toBe('envoy/authz/allow');
    expect(() => validateEnvoy({ query: 'x = data.a' })).toThrow('plugins.envoy_ext_authz_grpc.query: only a reference to a document under data is supported');
    expect(() => validateEnvoy({ query: 'data.a', path: 'a' })).toThrow('specify a value for only the "path" field');
  });

  it('bad values and unknown keys name the key', () => {
    expect(() => validateEnvoy({ 'dry-run': 'yes' })).toThrow('invalid configuration: plugins.envoy_ext_authz_grpc.dry-run: expected a boolean');
    expect(() => validateEnvoy({ dryrun: true })).toThrow('plugins.envoy_ext_authz_grpc.dryrun: unknown configuration key');
    expect(() => validateEnvoy({ addr: 'http://x:1' })).toThrow('invalid url scheme "http"');
    expect(() => validateEnvoy({ addr: 'localhost' })).toThrow('missing port in address');
    expect(() => validateEnvoy({ 'proto-descriptor': '/nonexistent.pb' })).toThrow('open /nonexistent.pb: no such file or directory');
  });

  it('addresses as grpc-js binds them', () => {
    expect(listenTarget(':9191')).toBe('0.0.0.0:9191');
    expect(listenTarget('grpc://127.0.0.1:9000')).toBe('127.0.0.1:9000');
    expect(listenTarget('unix:///tmp/ext-authz.sock')).toBe('unix:/tmp/ext-authz.sock');
  });
});

describe('from a configuration', () => {
  it('an unregistered plugin is still refused', () => {
    expect(() => validateConfig({ plugins: { nope: {} } })).toThrow('plugins.nope: unknown plugin');
  });

  it('the manager starts the plugin, reports its state and stops it; the raw configuration stays as written', async () => {
    const raw = { plugins: { envoy_ext_authz_grpc: { addr: '127.0.0.1:0', path: 'envoy/authz/allow' } } };
    const config = validateConfig(raw);
    expect(config.raw['plugins']).toEqual({ envoy_ext_authz_grpc: { addr: '127.0.0.1:0', path: 'envoy/authz/allow' } });
    const engine = new RegolithEngine();
    await engine.putPolicy('p.rego', 'package envoy.authz\nallow := true');
    const manager = new PluginManager({ config, engine });
    expect(manager.pluginStates()['envoy_ext_authz_grpc']).toEqual({ state: 'NOT_READY' });
    await manager.start();
    try {
      expect(manager.pluginStates()['envoy_ext_authz_grpc']).toEqual({ state: 'OK' });
      const plugin = manager.custom[0] as EnvoyPlugin;
      const client = new grpc.Client(`127.0.0.1:${plugin.port}`, grpc.credentials.createInsecure());
      const { response } = await check(client, httpRequest({ method: 'GET', path: '/' }));
      client.close();
      expect(response!['status']).toEqual({ code: 0 });
    } finally {
      await manager.stop();
    }
    expect(manager.pluginStates()['envoy_ext_authz_grpc']).toEqual({ state: 'NOT_READY' });
  });

  it('an address in use fails the start with a message naming it', async () => {
    const engine = new RegolithEngine();
    const a = new PluginManager({ config: validateConfig({ plugins: { envoy_ext_authz_grpc: { addr: '127.0.0.1:0' } } }), engine });
    await a.start();
    try {
      const port = (a.custom[0] as EnvoyPlugin).port;
      const b = new PluginManager({ config: validateConfig({ plugins: { envoy_ext_authz_grpc: { addr: `127.0.0.1:${port}` } } }), engine });
      await expect(b.start()).rejects.toThrow(`plugins.envoy_ext_authz_grpc: listen on 127.0.0.1:${port}:`);
    } finally {
      await a.stop();
    }
  });
});
