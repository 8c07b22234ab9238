import { execFileSync } from 'node:child_process';
import { hostname } from 'node:os';
import { defineConfig } from 'tsup';
import type { Plugin } from 'esbuild';
import { readFileSync } from 'node:fs';

// Chevrotain's packages do not declare themselves free of side effects, so a bundle would
// keep all of them (the parser-building toolkit, CST generators...) although Regolith only
// uses its lexer. They are: their modules only define things. Marking them so lets esbuild
// drop what the lexer does not reach.
const chevrotainWithoutSideEffects: Plugin = {
  name: 'chevrotain-without-side-effects',
  setup(build) {
    build.onResolve({ filter: /^(chevrotain|@chevrotain\/|\.)/ }, async (args) => {
      if (args.pluginData === 'resolved') return undefined;
      const inChevrotain = /node_modules\/(chevrotain|@chevrotain\/[^/]+)\//.test(args.importer);
      if (!inChevrotain && !/^(chevrotain|@chevrotain\/)/.test(args.path)) return undefined;
      const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'resolved' });
      if (r.errors.length > 0) return { errors: r.errors };
      return { path: r.path, external: r.external, namespace: r.namespace, sideEffects: false };
    });
  },
};

const define = {
  // The crash report schema ships inside the bundle (src/integrations/crash-reports/decode.ts
  // reads the file itself when run from the sources).
  __REGOLITH_TOMBSTONE_PROTO__: JSON.stringify(readFileSync('src/integrations/crash-reports/tombstone.proto', 'utf8')),
  // The version every surface reports (src/engine/version.ts), fixed at build time.
  __REGOLITH_VERSION__: JSON.stringify((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version),
  // `regolith version`'s build lines, as opa's: the commit (when built in a git checkout), time and host.
  __REGOLITH_BUILD__: JSON.stringify(buildInfo()),
};

function buildInfo(): { commit: string; timestamp: string; hostname: string } {
  let commit = '';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // not a git checkout (a source tarball): no commit to name
  }
  return { commit, timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), hostname: hostname() };
}

function esbuildOptions(options: { chunkNames?: string; minifyWhitespace?: boolean; minifySyntax?: boolean }): void {
  options.chunkNames = 'chunks/[name]-[hash]';
  // Less text for V8 to read at start-up; identifiers (and so class and function names) are kept.
  options.minifyWhitespace = true;
  options.minifySyntax = true;
}

// Pure-JS dependencies are bundled so that start-up does not walk node_modules; re2 (a
// native addon) and pino (which starts transports from its own files) stay external, and
// libraries that only some built-ins use (graphql, ajv) are required on first call. The gRPC
// packages (@grpc/*) are optional peer dependencies, loaded only by the Envoy plugin
// (src/integrations/envoy), so the package does not grow for those who do not use it; the
// OpenTelemetry packages (@opentelemetry/*) likewise, loaded only when distributed_tracing is
// configured (src/runtime/tracing) — except @opentelemetry/api, a runtime dependency: the
// bundled prom-client requires it when /metrics starts, and tracing must share that one copy.
const shared = {
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  external: ['re2', 'pino', /^@grpc\//, /^@opentelemetry\//],
  noExternal: [/^(?!re2$|pino$|@grpc\/|@opentelemetry\/)[^.]/],
  esbuildPlugins: [chevrotainWithoutSideEffects],
  define,
  esbuildOptions,
} as const;

export default defineConfig([
  // ES modules: the library (dist/index.js) and the CLI (dist/cli/main.js) share chunks under
  // dist/chunks/ (the same depth as dist/cli/, so `../../package.json` works from both).
  {
    ...shared,
    entry: { index: 'src/index.ts', 'cli/main': 'src/cli/main.ts' },
    format: ['esm'],
    dts: { entry: { index: 'src/index.ts' } },
    // dist/cjs/ is the other build's, running at the same time.
    clean: ['!cjs/**'],
    splitting: true,
    // Bundled CommonJS dependencies call require() for Node's own modules.
    banner: { js: "import { createRequire as __regolithCreateRequire } from 'node:module'; const require = __regolithCreateRequire(import.meta.url);" },
  },
  // CommonJS, for `require('regolith')`: the library alone, one file at dist/cjs/ (again two
  // levels below the package root). `shims` gives it an import.meta.url.
  {
    ...shared,
    entry: { 'cjs/index': 'src/index.ts' },
    format: ['cjs'],
    dts: { entry: { 'cjs/index': 'src/index.ts' } },
    clean: false,
    splitting: false,
    shims: true,
  },
]);
