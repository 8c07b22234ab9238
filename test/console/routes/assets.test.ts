// GET /ui, /ui/ and /ui/assets/<file>: the built console, with cache headers and content
// types, no way out of the assets directory, OPA-shaped 404s; no /ui at all without the
// console option or with server.ui: false.

import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../server/raw-http.js';
import { fakeBuild, get, INDEX_HTML, startUi, type UiServer } from './helpers.js';

let build: ReturnType<typeof fakeBuild>;
let s: UiServer;

beforeAll(async () => {
  build = fakeBuild();
  symlinkSync(join(build.dir, 'secret.txt'), join(build.dir, 'assets', 'link.txt'));
  s = await startUi({ assetsDir: build.dir });
});
afterAll(async () => {
  await s.close();
  build.remove();
});

describe('/ui pages', () => {
  it('serves index.html at /ui and /ui/, never cached', async () => {
    for (const p of ['/ui', '/ui/']) {
      const r = await get(s, p);
      expect(r.status).toBe(200);
      expect(r.text).toBe(INDEX_HTML);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it.each([
    ['app-1234.js', 'text/javascript; charset=utf-8'],
    ['app-1234.js.map', 'application/json; charset=utf-8'],
    ['style.css', 'text/css; charset=utf-8'],
    ['logo.svg', 'image/svg+xml'],
    ['logo.png', 'image/png'],
    ['fonts/mono.woff2', 'font/woff2'],
    ['data.bin', 'application/octet-stream'],
  ])('serves assets/%s as %s, cached for a year', async (file, type) => {
    const r = await fetch(`${s.url}/ui/assets/${file}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(type);
    expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it('answers a missing asset with a 404 in OPA error shape', async () => {
    const r = await get(s, '/ui/assets/nope.js');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ code: 'resource_not_found', message: 'asset not found: nope.js' });
  });

  it.each([
    '/ui/assets/../secret.txt',
    '/ui/assets/..%2fsecret.txt',
    '/ui/assets/%2e%2e/secret.txt',
    '/ui/assets/%2e%2e%2fsecret.txt',
    '/ui/assets/fonts/../../secret.txt',
    '/ui/assets/fonts/%2e%2e/%2e%2e/secret.txt',
    '/ui/assets/..%5csecret.txt',
    '/ui/assets/%2fetc%2fpasswd',
    '/ui/assets//etc/passwd',
    '/ui/assets/%00',
    '/ui/assets/',
    '/ui/assets/fonts',
    '/ui/assets/link.txt',
    '/ui/assets/%E0%A4%A',
  ])('never serves anything outside assets/ (%s)', async (p) => {
    // raw requests: fetch would normalise the dots away before sending
    const r = await rawRequest(s.url + p, 'GET');
    expect(r.body.toString()).not.toContain('crown jewels');
    expect(r.body.toString()).not.toContain('root:');
    expect(r.status).toBe(404);
  });

  it('answers an absolute path the same way', async () => {
    const r = await rawRequest(`${s.url}/ui/assets/${encodeURIComponent(join(build.dir, 'secret.txt'))}`, 'GET');
    expect(r.status).toBe(404);
    expect(r.body.toString()).not.toContain('crown jewels');
  });

  it('says to build the console when index.html is missing', async () => {
    const empty = await startUi({ assetsDir: join(build.dir, 'no-such-dir') });
    try {
      const r = await get(empty, '/ui');
      expect(r.status).toBe(404);
      expect(r.json.code).toBe('resource_not_found');
      expect(r.json.message).toContain('npm run build');
    } finally {
      await empty.close();
    }
  });
});

describe('no console', () => {
  it('has no /ui route without the console option', async () => {
    const none = await startUi(undefined);
    try {
      for (const p of ['/ui', '/ui/', '/ui/assets/app-1234.js', '/ui/api/status', '/ui/api/decisions']) {
        const r = await get(none, p);
        expect(r.status).toBe(404);
        expect(r.text).toBe('404 page not found\n');
      }
      expect((await fetch(`${none.url}/ui/api/eval`, { method: 'POST', body: '{}' })).status).toBe(404);
    } finally {
      await none.close();
    }
  });

  it('has no /ui route with server.ui: false', async () => {
    const off = await startUi({ assetsDir: build.dir }, { config: { server: { ui: false } } });
    try {
      for (const p of ['/ui', '/ui/assets/app-1234.js', '/ui/api/status']) {
        const r = await get(off, p);
        expect(r.status).toBe(404);
        expect(r.text).toBe('404 page not found\n');
      }
    } finally {
      await off.close();
    }
  });

  it('serves the console with server.ui: true', async () => {
    const on = await startUi({ assetsDir: build.dir }, { config: { server: { ui: true } } });
    try {
      expect((await get(on, '/ui')).status).toBe(200);
    } finally {
      await on.close();
    }
  });
});
