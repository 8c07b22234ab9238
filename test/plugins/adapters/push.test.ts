// The push-channel mechanism every watching adapter shares, with a minimal adapter type
// registered for the test: channels opened after a read and renewed before they lapse,
// notifications authenticated by the channel token and answered at once, an early read
// after each (not after `sync`), channels closed on stop.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADAPTER_TYPES } from '../../../src/plugins/adapters/index.js';
import type { AdapterType, JSONValue, PushChannel } from '../../../src/plugins/adapters/types.js';
import { httpServer, waitFor, type TestHTTPServer } from '../../loopback.js';
import { serve, type Served } from './harness.js';

let api: TestHTTPServer & { value: number; expiresIn: number };
let s: Served | undefined;

const watched: AdapterType<{ resource: string }> = {
  kind: 'data',
  defaultRoot: 'watched',
  pushTokenHeader: 'x-goog-channel-token',
  settings: (sec) => ({ resource: sec.str('resource') ?? 'things' }),
  data: (settings) => ({
    read: async (ctx) => (await ctx.http.json({ path: `/${settings.resource}` })).json,
    watch: async (ctx) => {
      const id = ctx.newId();
      const r = (await ctx.http.json({ method: 'POST', path: `/${settings.resource}/watch`, body: { id, type: 'web_hook', address: ctx.address, token: ctx.token } })).json as Record<string, JSONValue>;
      return [{ id, resourceId: String(r['resourceId']), expiration: Number(r['expiration']) } satisfies PushChannel];
    },
    unwatch: async (ctx, channels) => {
      for (const c of channels) await ctx.http.json({ method: 'POST', path: '/channels/stop', body: { id: c.id, resourceId: c.resourceId ?? null } });
    },
  }),
};

beforeEach(async () => {
  ADAPTER_TYPES['test_watched'] = watched as AdapterType;
  api = Object.assign(await httpServer(() => {}), { value: 1, expiresIn: 3_600_000 });
  api.handler = (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/things') return void res.end(JSON.stringify({ value: api.value }));
    if (req.url === '/things/watch') return void res.end(JSON.stringify({ kind: 'api#channel', resourceId: 'res-1', expiration: String(Date.now() + api.expiresIn) }));
    res.end('{}');
  };
});
afterEach(async () => {
  await s?.stop();
  s = undefined;
  await api.close();
  delete ADAPTER_TYPES['test_watched'];
});

const config = (push: Record<string, unknown> = { address: 'https://regolith.example/v1/events/things', token: 'chan-secret' }, polling = { min_delay_seconds: 1000, max_delay_seconds: 1000 }) => ({
  services: { api: { url: api.url } },
  adapters: { things: { type: 'test_watched', service: 'api', polling, push } },
});
const calls = (path: string) => api.requests.filter((r) => r.url === path).map((r) => JSON.parse(r.body.toString()) as Record<string, any>);
const notify = (headers: Record<string, string>) => fetch(`${s!.server.url}/v1/events/things`, { method: 'POST', headers, body: '' });

describe('push channels', () => {
  async function start(cfg = config()) {
    s = await serve(cfg);
    await waitFor('the first read', async () => (await s!.get('/v1/data/watched')).body?.result?.value === 1);
    // the channel as the adapter holds it (the stand-in sees the watch call before the adapter has its answer)
    await waitFor('the channel open', () => s!.manager.adapters!.data.get('things')!.openChannels().length === 1);
    return s;
  }

  it('opens a channel after the first read, with the configured address and token', async () => {
    await start();
    expect(calls('/things/watch')[0]).toMatchObject({ type: 'web_hook', address: 'https://regolith.example/v1/events/things', token: 'chan-secret' });
    expect(s!.manager.adapters!.data.get('things')!.openChannels()).toHaveLength(1);
  });

  it('reads at once on a notification with the channel token, and only then', async () => {
    await start();
    api.value = 2;
    expect((await notify({ 'x-goog-channel-token': 'wrong', 'x-goog-resource-state': 'update' })).status).toBe(401);
    expect((await notify({ 'x-goog-resource-state': 'update' })).status).toBe(401);
    expect((await notify({ 'x-goog-channel-token': 'chan-secret', 'x-goog-resource-state': 'sync' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    expect((await s!.get('/v1/data/watched')).body.result.value).toBe(1); // polling is 1000 s away: nothing read
    const r = await notify({ 'x-goog-channel-token': 'chan-secret', 'x-goog-channel-id': 'c', 'x-goog-resource-state': 'update' });
    expect(r.status).toBe(200);
    await waitFor('the early read', async () => (await s!.get('/v1/data/watched')).body.result.value === 2);
    expect(s!.manager.adapters!.data.get('things')!.notifications).toBe(1);
  });

  it('renews channels that lapse before the next poll, and closes them on stop', async () => {
    api.expiresIn = 10; // lapses long before the next poll
    await start(config(undefined, { min_delay_seconds: 1, max_delay_seconds: 1 }));
    await waitFor('a renewal', () => calls('/things/watch').length >= 2);
    // the old channel was stopped when the new one opened
    await waitFor('the old channel stopped', () => calls('/channels/stop').length >= 1);
    const open = s!.manager.adapters!.data.get('things')!.openChannels();
    await s!.stop();
    const stopped = calls('/channels/stop').map((b) => b['id']);
    for (const c of open) expect(stopped).toContain(c.id);
  });

  it('refuses push for a type without channels, and push without a token', async () => {
    await expect(serve({ services: { ci: { url: 'http://127.0.0.1:1' } }, adapters: { p: { type: 'build_pipeline', service: 'ci', push: { address: 'https://x.example', token: 't' } } } })).rejects.toThrow(/adapters\.p\.push: this adapter type has no push notifications/);
    await expect(serve(config({ address: 'https://x.example' }))).rejects.toThrow(/adapters\.things\.push: push needs token or token_path/);
    await expect(serve(config({ address: 'ftp://x', token: 't' }))).rejects.toThrow(/adapters\.things\.push\.address/);
  });

  it('keeps the channel token out of /v1/config', async () => {
    await start();
    const text = await (await fetch(`${s!.server.url}/v1/config`)).text();
    expect(text).not.toContain('chan-secret');
    expect(JSON.parse(text).result.adapters.things.push.address).toBe('https://regolith.example/v1/events/things');
  });
});
