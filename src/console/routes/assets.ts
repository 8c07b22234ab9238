// GET /ui, /ui/ (index.html, never cached) and GET /ui/assets/<file> (content-hashed
// bundles, cached for a year). A file is served only from inside <assetsDir>/assets: each
// path segment is unescaped and checked (no "..", ".", empty segment, slash, backslash or
// NUL), and the resolved real path (symbolic links followed) must still be inside.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { App } from '../../server/context.js';
import type { RouteDecl } from '../../server/route-table.js';
import type { ConsoleOptions } from '../options.js';
import { Code, HttpError } from '../../server/errors.js';
import { route } from '../../server/handler.js';
import { splitURL } from '../../server/params.js';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

const NOT_BUILT = 'the web console is not built (no index.html in its assets directory): run `npm run build`';

function notFound(message: string): HttpError {
  return new HttpError(404, Code.resourceNotFound, message);
}

/** The segments of the path under /ui/assets/, unescaped; undefined when one is unsafe. */
export function safeSegments(rest: string): string[] | undefined {
  if (rest === '') return undefined;
  const out: string[] = [];
  for (const raw of rest.split('/')) {
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (seg === '' || seg === '.' || seg === '..' || /[/\\\0]/.test(seg) || seg.includes(':')) return undefined;
    out.push(seg);
  }
  return out;
}

/** The real path of `file` when it is a regular file inside `root`; undefined otherwise. */
async function inside(root: string, file: string): Promise<string | undefined> {
  try {
    const [r, f] = await Promise.all([fsp.realpath(root), fsp.realpath(file)]);
    if (!f.startsWith(r + path.sep)) return undefined;
    const st = await fsp.stat(f);
    return st.isFile() ? f : undefined;
  } catch {
    return undefined;
  }
}

/** Any worker serves the pages. */
export const assetRoutes: readonly RouteDecl[] = [
  { method: 'GET', path: '/ui', answeredBy: 'worker' },
  { method: 'GET', path: '/ui/', answeredBy: 'worker' },
  { method: 'GET', path: '/ui/assets/*', answeredBy: 'worker' },
];

export function registerUiAssets(app: App, c: ConsoleOptions): void {
  const index = route('ui', async () => {
    let html: Buffer;
    try {
      html = await fsp.readFile(path.join(c.assetsDir, 'index.html'));
    } catch {
      throw notFound(NOT_BUILT);
    }
    return new Response(html, {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
    });
  });
  app.get('/ui', index);
  app.get('/ui/', index);

  app.get(
    '/ui/assets/*',
    route('ui/assets', async (ctx) => {
      // the raw path (still escaped): Hono's own decoding must not hide a "%2f" or "%2e%2e"
      const p = splitURL(ctx.req.url).path;
      const rest = p.startsWith('/ui/assets/') ? p.slice('/ui/assets/'.length) : '';
      const segs = safeSegments(rest);
      if (!segs) throw notFound('asset not found');
      const root = path.resolve(c.assetsDir, 'assets');
      const file = await inside(root, path.join(root, ...segs));
      if (!file) throw notFound(`asset not found: ${segs.join('/')}`);
      const body = await fsp.readFile(file);
      return new Response(body, {
        status: 200,
        headers: {
          'content-type': TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
        },
      });
    }),
  );
}
