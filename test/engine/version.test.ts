import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { regolithVersion } from '../../src/engine/version.js';
import { PluginManager } from '../../src/plugins/manager.js';
import { validateConfig } from '../../src/plugins/config/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { Store } from '../../src/storage/index.js';
import { createApp } from '../../src/server/index.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('one version everywhere (issue 28)', () => {
  it('is the package version', () => {
    expect(regolithVersion()).toBe(pkg.version);
  });

  it('labels status and decision events with it, as /v1/config reports it', async () => {
    const engine = new RegolithEngine({ store: new Store() });
    const manager = new PluginManager({ config: validateConfig({}), engine });
    expect(manager.labels['version']).toBe(pkg.version);
    const { app } = createApp({ engine, config: {} });
    const res = await app.request('/v1/config');
    const body = (await res.json()) as { result: { labels: { version: string } } };
    expect(body.result.labels.version).toBe(pkg.version);
  });
});
