import { defineConfig } from 'tsup';

// The library (dist/index.js) and the CLI (dist/cli/main.js) share chunks under
// dist/chunks/ (the same depth as dist/cli/, so `../../package.json` works from both).
// Pure-JS dependencies are bundled so that start-up does not walk node_modules; re2 (a
// native addon) and pino (which starts transports from its own files) stay external, and
// libraries that only some built-ins use (graphql, ajv) are required on first call.
export default defineConfig({
  entry: { index: 'src/index.ts', 'cli/main': 'src/cli/main.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  splitting: true,
  external: ['re2', 'pino'],
  noExternal: [/^(?!re2$|pino$)[^.]/],
  // Bundled CommonJS dependencies call require() for Node's own modules.
  banner: { js: "import { createRequire as __regolithCreateRequire } from 'node:module'; const require = __regolithCreateRequire(import.meta.url);" },
  esbuildOptions(options) {
    options.chunkNames = 'chunks/[name]-[hash]';
  },
});
