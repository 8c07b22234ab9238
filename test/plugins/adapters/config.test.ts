// The `adapters:` section: defaults, and an error naming the key for each mistake a user
// can make; secrets kept out of /v1/config.

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { registerIntegrations } from '../../../src/integrations/index.js';
import { startServer } from '../../../src/server/index.js';

// The shipped adapter types, as the runtime registers them before it reads a configuration.
registerIntegrations();

const svc = { services: { insights: { url: 'http://127.0.0.1:1' }, ci: { url: 'http://127.0.0.1:2' } } };
const one = (a: Record<string, unknown>) => validateConfig({ ...svc, adapters: { a } });

describe('adapters configuration', () => {
  it('fills in the defaults of a data adapter', () => {
    const c = one({ type: 'package_insights', service: 'insights', packages: ['npm/left-pad@1.3.0'] }).adapters['a']!;
    expect(c).toMatchObject({
      kind: 'data',
      root: ['insights'],
      polling: { min_delay_seconds: 300, max_delay_seconds: 600 },
      persist: false,
      trigger: 'periodic',
      retry: { maxRetries: 4, maxDelaySeconds: 60, maxResponseBytes: 64 * 1024 * 1024 },
      settings: { packages: [{ system: 'NPM', name: 'left-pad', version: '1.3.0' }], lockfiles: [], purls: [], requirements: false },
    });
    expect(one({ type: 'build_pipeline', service: 'ci', root: 'ci.state' }).adapters['a']!.root).toEqual(['ci', 'state']);
    expect(one({ type: 'build_pipeline', service: 'ci', root: 'ci/state' }).adapters['a']!.root).toEqual(['ci', 'state']);
  });

  it('names the key of every mistake', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ service: 'insights' }, /adapters\.a\.type/],
      [{ type: 'ldap', service: 'insights' }, /adapters\.a\.type: unknown adapter type "ldap" \(known: [a-z_, ]*build_pipeline, [a-z_, ]*package_insights, pipeline_webhook\b/],
      [{ type: 'package_insights', service: 'nope', packages: ['NPM/a@1'] }, /adapters\.a\.service/],
      [{ type: 'package_insights', service: 'insights' }, /adapters\.a: name what to look up: lockfiles, packages or purls/],
      [{ type: 'package_insights', service: 'insights', packages: ['left-pad'] }, /adapters\.a\.packages\[0\]: "left-pad" is not SYSTEM\/name@version/],
      [{ type: 'package_insights', service: 'insights', packages: ['NPM/a@1'], root: 'system.x' }, /adapters\.a\.root: data\.system is reserved/],
      [{ type: 'package_insights', service: 'insights', packages: ['NPM/a@1'], root: '/' }, /adapters\.a\.root: an adapter cannot own the whole data document/],
      [{ type: 'package_insights', service: 'insights', packages: ['NPM/a@1'], polling: { min_delay_seconds: 10, max_delay_seconds: 5 } }, /adapters\.a\.polling/],
      [{ type: 'package_insights', service: 'insights', packages: ['NPM/a@1'], retry: { max_retries: 'many' } }, /adapters\.a\.retry\.max_retries/],
      [{ type: 'package_insights', service: 'insights', packages: ['NPM/a@1'], colour: 'blue' }, /adapters\.a\.colour/],
      [{ type: 'build_pipeline', service: 'ci', jobs: { filter: 'green' } }, /adapters\.a\.jobs\.filter: "green" is not one of completed, successful, failed, running/],
      [{ type: 'build_pipeline', service: 'ci', jobs: { limit: 0 } }, /adapters\.a\.jobs\.limit: must be between 1 and 100/],
      [{ type: 'build_pipeline', service: 'ci', projects: [{ vcs_type: 'github', username: 'x' }] }, /adapters\.a\.projects\[0\]\.project/],
      [{ type: 'pipeline_webhook', token: 's' }, /adapters\.a\.rule/],
    ];
    for (const [a, message] of cases) expect(() => one(a), JSON.stringify(a)).toThrow(message);
    expect(() => validateConfig({ ...svc, adapters: { 'bad name': { type: 'build_pipeline', service: 'ci' } } })).toThrow(/adapters\.bad name: adapter names are letters/);
    expect(() => validateConfig({ ...svc, adapters: { hook: { type: 'pipeline_webhook', rule: 'x/y', token: 's', refresh: ['hook'] } } })).toThrow(/adapters\.hook\.refresh: "hook" is not a data adapter/);
    expect(() => validateConfig({ ...svc, adapters: [] })).toThrow(/adapters/);
    expect(() => validateConfig({ adapters: { a: { type: 'package_insights', packages: ['NPM/a@1'] } } })).toThrow(/adapters\.a\.service/);
    // as for bundles, an adapter without a service name uses the first service
    expect(one({ type: 'package_insights', packages: ['NPM/a@1'] }).adapters['a']!.service).toBe('insights');
  });

  it('keeps event adapter secrets out of /v1/config', async () => {
    const cfg = validateConfig({ ...svc, adapters: { hook: { type: 'pipeline_webhook', rule: 'data.deploy.allow', token: 'hook-secret', token_header: 'X-Hook-Token' } } });
    expect(cfg.adapters['hook']).toMatchObject({ rule: 'deploy/allow', token_header: 'X-Hook-Token' });
    const server = await startServer({ addr: '127.0.0.1:0', engine: new RegolithEngine(), config: cfg.raw, logger: pino({ level: 'silent' }), processMetrics: false });
    try {
      const text = await (await fetch(server.url + '/v1/config')).text();
      expect(text).not.toContain('hook-secret');
      expect(JSON.parse(text).result.adapters.hook).toMatchObject({ type: 'pipeline_webhook', rule: 'data.deploy.allow' });
    } finally {
      await server.close();
    }
  });
});
