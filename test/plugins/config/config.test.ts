// OPA's configuration file: YAML/JSON, ${ENV}, --set, defaults and errors naming the key.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, applySet, loadConfig, validateConfig } from '../../../src/plugins/config/index.js';
import { redactConfig } from '../../../src/server/redact.js';

const dir = mkdtempSync(join(tmpdir(), 'regolith-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('configuration', () => {
  it('reads YAML with ${ENV} substitution and fills OPA defaults', () => {
    const p = file(
      'c.yaml',
      `services:
  acme:
    url: \${BASE_URL}/v1/
    credentials:
      bearer:
        token: "\${TOKEN}"
labels:
  app: myapp
bundles:
  authz:
    service: acme
decision_logs:
  console: true
status:
  service: acme
`,
    );
    const c = loadConfig({ configFile: p, env: { BASE_URL: 'https://example.com', TOKEN: 't0k' } });
    expect(c.services['acme']).toMatchObject({ url: 'https://example.com/v1', response_header_timeout_seconds: 10, credentials: { bearer: { token: 't0k', scheme: 'Bearer' } } });
    expect(c.bundles['authz']).toMatchObject({ resource: 'bundles/authz', persist: false, polling: { min_delay_seconds: 60, max_delay_seconds: 120 }, trigger: 'periodic' });
    expect(c.decision_logs!.service).toBeUndefined(); // console-only: no default service
    expect(c.decision_logs).toMatchObject({ console: true, resource: '/logs', reporting: { min_delay_seconds: 300, max_delay_seconds: 600, upload_size_limit_bytes: 32768 }, mask_decision: '/system/log/mask', drop_decision: '/system/log/drop' });
    expect(c.default_decision).toBe('/system/main');
    expect(c.labels).toEqual({ app: 'myapp' });
  });

  it('an invalid configuration names the ${VARIABLES} it refers to that the environment leaves unset', () => {
    const p = file('unset.yaml', 'services:\n  control:\n    url: http://localhost:9000\n    credentials:\n      bearer:\n        token: ${CONTROL_TOKEN}\n');
    expect(() => loadConfig({ configFile: p, env: {} })).toThrow(
      `config file ${p}: environment variable \${CONTROL_TOKEN} not set (read as empty); invalid configuration: services.control.credentials.bearer: one of token or token_path is required`,
    );
    // Set, it is read; unset in a valid configuration, it is OPA's empty value and no error.
    expect(loadConfig({ configFile: p, env: { CONTROL_TOKEN: 'x' } }).services['control']!.credentials!.bearer!.token).toBe('x');
    const ok = file('unset-ok.yaml', 'labels:\n  team: "${TEAM}"\n');
    expect(loadConfig({ configFile: ok, env: {} }).labels).toEqual({ team: '' });
  });

  it('accepts JSON and a list of services', () => {
    const p = file('c.json', JSON.stringify({ services: [{ name: 's1', url: 'http://a' }], bundles: { b: { resource: 'x.tar.gz' } } }));
    const c = loadConfig({ configFile: p });
    expect(c.services['s1']!.url).toBe('http://a');
    expect(c.bundles['b']!.service).toBe('s1');
  });

  it('applies --set overrides with OPA value typing', () => {
    const doc: Record<string, unknown> = { bundles: { authz: { service: 'x' } } };
    applySet(doc, 'services.x.url=http://h:8080,bundles.authz.persist=true', false);
    applySet(doc, 'bundles.authz.polling.min_delay_seconds=5', false);
    applySet(doc, 'bundles.authz.signing.exclude_files={a.json,b.json}', false);
    applySet(doc, 'labels.build=007', false);
    const c = validateConfig({ ...doc, keys: {} });
    expect(c.bundles['authz']).toMatchObject({ persist: true, polling: { min_delay_seconds: 5 }, signing: { exclude_files: ['a.json', 'b.json'] } });
    expect(c.services['x']!.url).toBe('http://h:8080');
    expect(c.labels['build']).toBe('007'); // leading zeros stay strings, as in Helm's strvals
    const viaLoad = loadConfig({ set: ['services.s.url=http://z', 'status.console=true'] });
    expect(viaLoad.status).toMatchObject({ console: true });
  });

  it('fails on unknown or invalid settings, naming the key', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ bundels: {} }, /bundels: unknown configuration key/],
      [{ services: { a: { url: 'http://a', header: {} } } }, /services\.a\.header: unknown configuration key/],
      [{ services: { a: { url: 3 } } }, /services\.a\.url: expected a string/],
      [{ services: { a: {} } }, /services\.a\.url: missing required value/],
      [{ services: { a: { url: 'http://a' } }, bundles: { b: { service: 'nope' } } }, /bundles\.b\.service: invalid service name "nope"/],
      [{ services: { a: { url: 'http://a' } }, bundles: { b: { polling: { min_delay_seconds: 'soon' } } } }, /bundles\.b\.polling\.min_delay_seconds: expected a non-negative integer/],
      [{ services: { a: { url: 'http://a' } }, bundles: { b: { polling: { min_delay_seconds: 9, max_delay_seconds: 3 } } } }, /bundles\.b\.polling: minimum polling interval/],
      [{ services: { a: { url: 'http://a' } }, bundles: { b: { signing: { keyid: 'k' } } } }, /bundles\.b\.signing\.keyid: key "k" not found/],
      [{ keys: { k: { algorithm: 'XX1', key: 'a' } } }, /keys\.k\.algorithm: unsupported algorithm "XX1"/],
      [{ decision_logs: { reporting: { upload_size_limit_bytes: -1 } }, services: { a: { url: 'http://a' } } }, /decision_logs\.reporting\.upload_size_limit_bytes/],
      [{ decision_logs: {} }, /decision_logs: no service and console logging disabled/],
      [{ status: { consol: true } }, /status\.consol: unknown configuration key/],
      [{ server: { encoding: { gzip: { min_length: 'x' } } } }, /server\.encoding\.gzip\.min_length/],
      [{ plugins: { custom: {} } }, /plugins\.custom: unknown plugin/],
      [{ services: { a: { url: 'http://a', credentials: { bearer: { token: 't' }, oauth2: { token_url: 'http://t', client_id: 'c', client_secret: 's' } } } } }, /only one kind of credentials/],
    ];
    for (const [doc, msg] of cases) {
      let err: unknown;
      try {
        validateConfig(doc);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(doc)).toBeInstanceOf(ConfigError);
      expect((err as Error).message, JSON.stringify(doc)).toMatch(msg);
    }
    expect(() => loadConfig({ configFile: file('bad.yaml', 'services: [unclosed') })).toThrow(ConfigError);
    expect(() => loadConfig({ configFile: join(dir, 'missing.yaml') })).toThrow(/no such file/);
    expect(() => loadConfig({ set: ['novalue'] })).toThrow(/has no value/);
  });

  it('redacts credentials and key material for /v1/config', () => {
    const c = validateConfig({
      services: { a: { url: 'http://a', credentials: { oauth2: { token_url: 'http://t', client_id: 'c', client_secret: 'shh' } } } },
      keys: { k: { algorithm: 'RS256', key: 'PUB', private_key: 'PRIV', scope: 'read' } },
    });
    const r = redactConfig(c.raw, '1.0.0') as Record<string, any>;
    expect(r.services.a).toEqual({ url: 'http://a' });
    expect(r.keys.k).toEqual({ algorithm: 'RS256', scope: 'read' });
  });
});
