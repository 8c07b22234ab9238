// Build the web console (ui/) into dist/ui: one bundled ES module with CodeMirror inside
// (no CDN at run time), the stylesheet, and index.html pointing at both. The server caches
// /ui/assets/* for a year, so asset names carry a content hash (app-<hash>.js) and only
// index.html (never cached) names them. A rebuild never leaves dist/ui half-written for a
// running server: new assets are written beside the old, index.html is swapped in by a
// rename, and only then are the old assets removed. `--out <dir>` builds elsewhere (the
// browser tests build the current ui/ sources into a directory of their own).

import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outFlag = process.argv.indexOf('--out');
const out = outFlag > 0 && process.argv[outFlag + 1] ? process.argv[outFlag + 1] : join(root, 'dist', 'ui');
const assets = join(out, 'assets');

await mkdir(assets, { recursive: true });
const before = new Set(await readdir(assets));
const result = await build({
  entryPoints: { app: join(root, 'ui', 'src', 'main.ts') },
  outdir: assets,
  entryNames: '[name]-[hash]',
  bundle: true,
  platform: 'browser',
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
const [appPath, app] = Object.entries(result.metafile.outputs).find(([k]) => k.endsWith('.js'));
const appName = basename(appPath);

const css = await readFile(join(root, 'ui', 'styles.css'));
const cssName = `styles-${createHash('sha256').update(css).digest('hex').slice(0, 8)}.css`;
await writeFile(join(assets, cssName), css);

const html = (await readFile(join(root, 'ui', 'index.html'), 'utf8'))
  .replace('/ui/assets/app.js', `/ui/assets/${appName}`)
  .replace('/ui/assets/styles.css', `/ui/assets/${cssName}`);
if (!html.includes(appName) || !html.includes(cssName)) throw new Error('ui/index.html must load /ui/assets/app.js and /ui/assets/styles.css');
await writeFile(join(out, `index.html.${process.pid}`), html);
await rename(join(out, `index.html.${process.pid}`), join(out, 'index.html'));
const keep = new Set([appName, `${appName}.map`, cssName]);
for (const f of before) if (!keep.has(f)) await rm(join(assets, f), { force: true });
console.log(`ui: ${join(assets, appName)} (${(app.bytes / 1024).toFixed(0)} KiB), ${cssName}, index.html`);
