// The package as users get it: `npm pack`, the tarball installed into an empty directory,
// then the CLI through `npx`, the library through `import` and `require`, and both type
// entries through TypeScript. Prints the tarball's size, the install time and the size of
// the installed tree.
//
// re2 (a native addon) downloads a prebuilt binary from GitHub on install and compiles
// itself from source (minutes of CPU) when it cannot. This machine reaches only the npm
// registry, so the test serves the binary the project's own install already has through
// re2's documented mirror setting (RE2_DOWNLOAD_MIRROR), from a server on loopback: the
// install then goes the way it goes for a user who reaches GitHub.

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt } from '../cli/helpers.js';

const work = mkdtempSync(join(tmpdir(), 'regolith-pack-'));
const app = join(work, 'app');
let tarball = '';
let tarFiles: string[] = [];
let mirror: Server | undefined;
let mirrorUrl = '';
const requested: string[] = [];

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env } });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function treeSize(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (st === undefined) continue;
    total += st.isDirectory() ? treeSize(p) : st.size;
  }
  return total;
}

// The install runs while this process serves the mirror, so it must not block the event loop.
function runAsync(cmd: string, args: string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

// Built-ins whose libraries (graphql, ajv) are runtime dependencies required on first call.
const LAZY_DEPS_QUERY = '[graphql.is_valid("{ a }", "type Query { a: Int }"), json.match_schema({"a": 1}, {"type": "object"})[0]]';

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;

beforeAll(async () => {
  ensureBuilt();
  // Pack from a staging copy: the snapshot of dist/ this process owns, so a concurrent
  // rebuild cannot empty dist/ under `npm pack`.
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const f of ['package.json', 'README.md']) cpSync(join(ROOT, f), join(stage, f));
  cpSync(join(ROOT, 'policies'), join(stage, 'policies'), { recursive: true });
  cpSync(dirname(dirname(BIN)), join(stage, 'dist'), { recursive: true });
  const packed = run('npm', ['pack', '--json', '--pack-destination', work], stage);
  expect(packed.code, packed.stderr).toBe(0);
  const info = JSON.parse(packed.stdout) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
  tarball = join(work, info[0]!.filename);
  tarFiles = info[0]!.files.map((f) => f.path);
  console.log(`package: ${info[0]!.filename}, ${mb(info[0]!.size)} packed, ${mb(info[0]!.unpackedSize)} unpacked, ${tarFiles.length} files`);

  const re2Binary = join(ROOT, 'node_modules/re2/build/Release/re2.node');
  // Served uncompressed: re2 asks for .br, then .gz, then the plain file.
  const artifact = readFileSync(re2Binary);
  mirror = createServer((req, res) => {
    requested.push(req.url ?? '');
    if (req.url?.endsWith(`/${process.platform}-${process.arch}-${process.versions.modules}`)) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(artifact);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => mirror!.listen(0, '127.0.0.1', r));
  const port = (mirror.address() as { port: number }).port;
  mirrorUrl = `http://127.0.0.1:${port}`;

  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  const started = Date.now();
  const installed = await runAsync('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts'], app, {
    RE2_DOWNLOAD_MIRROR: mirrorUrl,
  });
  expect(installed.code, installed.output).toBe(0);
  const seconds = (Date.now() - started) / 1000;
  console.log(`install: ${seconds.toFixed(1)} s, installed tree ${mb(treeSize(join(app, 'node_modules')))} (${readdirSync(join(app, 'node_modules')).length} top-level entries)`);
}, 600_000);

// Three installed trees (~50 MB each) to delete: more than a hook's default time on a loaded machine.
afterAll(() => {
  mirror?.close();
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('the packed tarball', () => {
  it('holds the built package and nothing it does not need', () => {
    expect(tarFiles).toContain('dist/index.js');
    expect(tarFiles).toContain('dist/cjs/index.cjs');
    expect(tarFiles).toContain('dist/cjs/index.d.cts');
    expect(tarFiles).toContain('dist/cli/main.js');
    expect(tarFiles).toContain('policies/supply-chain/supply_chain.rego');
    const unwanted = tarFiles.filter((f) =>
      /^(src|test|bench|ui|scripts|lint|deploy|examples|docs)\//.test(f) || /\.map$/.test(f) || (/\.ts$/.test(f) && !/\.d\.c?ts$/.test(f)) ||
      /_test\.rego$/.test(f), // the shipped policies' own tests
    );
    expect(unwanted).toEqual([]);
  });

  it('installs its native dependency from a prebuilt binary, not by compiling it', () => {
    expect(requested.some((u) => u.endsWith(`-${process.versions.modules}`))).toBe(true);
    expect(existsSync(join(app, 'node_modules/re2/build/Release/re2.node'))).toBe(true);
    // A compile from source leaves node-gyp's object files behind.
    expect(existsSync(join(app, 'node_modules/re2/build/Release/obj.target'))).toBe(false);
  });
});

describe('the installed package', () => {
  it('runs the CLI through npx', () => {
    const version = run('npx', ['--no-install', 'regolith', 'version'], app);
    expect(version.code, version.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout).toContain(pkg.version);

    writeFileSync(join(app, 'policy.rego'), 'package app\n\nallow if input.user == "alice"\n');
    writeFileSync(join(app, 'input.json'), '{"user": "alice"}');
    const evaluated = run('npx', ['--no-install', 'regolith', 'eval', '-d', 'policy.rego', '-i', 'input.json', '--format', 'raw', 'data.app.allow'], app);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(evaluated.stdout.trim()).toBe('true');

    // The built-ins that load a runtime dependency on first call (graphql, ajv) find it in the installed tree.
    const lazy = run('npx', ['--no-install', 'regolith', 'eval', '--format', 'raw', LAZY_DEPS_QUERY], app);
    expect(lazy.code, lazy.stderr).toBe(0);
    expect(lazy.stdout.trim()).toBe('[true,true]');
  });

  it('finds its shipped policies (upgrade-check runs policies/runtime-upgrade from the package)', () => {
    const ex = (f: string) => join(ROOT, 'examples/upgrade', f);
    const r = run('npx', ['--no-install', 'regolith', 'upgrade-check', '--cluster', ex('facts.yaml'), '--organization', ex('org.json'), ex('overrides.yaml')], app);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('ready: no violations');
    const broken = run('npx', ['--no-install', 'regolith', 'upgrade-check', '--cluster', ex('facts.yaml'), '--organization', ex('org.json'), ex('overrides-1.2.yaml')], app);
    expect(broken.code, broken.stdout + broken.stderr).toBe(1);
  }, 120_000);

  it('starts the server and answers a decision (the bundled modules find their dependencies)', async () => {
    writeFileSync(join(app, 'server.rego'), 'package app\n\nallow if input.user == "alice"\n');
    const child = spawn(join(app, 'node_modules/.bin/regolith'), ['run', '--server', '--addr', '127.0.0.1:0', '--log-level', 'info', 'server.rego'], { cwd: app });
    let output = '';
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${output}`)), 60_000);
        const look = () => {
          const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
          if (m) {
            clearTimeout(timer);
            resolve(`http://127.0.0.1:${m[1]}`);
          }
        };
        child.stderr.on('data', look);
        child.stdout.on('data', look);
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
      });
      const res = await fetch(`${url}/v1/data/app/allow`, { method: 'POST', body: JSON.stringify({ input: { user: 'alice' } }) });
      expect(await res.json()).toEqual({ result: true });
      const metrics = await fetch(`${url}/metrics`);
      expect(metrics.status).toBe(200);
    } finally {
      child.kill();
    }
  }, 90_000);

  const program = `
    const policy = 'package app\\n\\ndefault allow := false\\n\\nallow if input.user == "alice"\\n';
    const r = new Regolith();
    r.addModule('app.rego', policy);
    console.log(JSON.stringify([r.decide('app/allow', { user: 'alice' }), r.decide('app/allow', { user: 'bob' })]));
  `;

  it('imports as an ES module', () => {
    writeFileSync(join(app, 'esm.mjs'), `import { Regolith } from 'regolith';\n${program}`);
    const r = run(process.execPath, ['esm.mjs'], app);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('[true,false]');
  });

  it('requires as a CommonJS module', () => {
    writeFileSync(join(app, 'cjs.cjs'), `const { Regolith } = require('regolith');\n(async () => {${program}})();`);
    const r = run(process.execPath, ['cjs.cjs'], app);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('[true,false]');

    // The CommonJS build loads graphql and ajv on first call too.
    writeFileSync(join(app, 'lazy.cjs'), `const { Regolith } = require('regolith');
const r = new Regolith();
r.addModule('lazy.rego', ${JSON.stringify(`package lazy

v := ${LAZY_DEPS_QUERY}
`)});
console.log(JSON.stringify(r.decide('lazy/v', {})));
`);
    const lazy = run(process.execPath, ['lazy.cjs'], app);
    expect(lazy.code, lazy.stderr).toBe(0);
    expect(lazy.stdout.trim()).toBe('[true,true]');
  });

  it('gives TypeScript its types for both entries', () => {
    writeFileSync(join(app, 'esm.mts'), "import { Regolith } from 'regolith';\nconst r: Regolith = new Regolith();\nr.addModule('a.rego', 'package a');\n");
    writeFileSync(join(app, 'cjs.cts'), "import { Regolith } from 'regolith';\nconst r: Regolith = new Regolith();\nr.addModule('a.rego', 'package a');\n");
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { module: 'node16', moduleResolution: 'node16', strict: true, noEmit: true, skipLibCheck: false, typeRoots: [join(ROOT, 'node_modules/@types')], types: ['node'] },
      files: ['esm.mts', 'cjs.cts'],
    }));
    const r = run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], app);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }, 180_000);
});

// The README's two ways to put `regolith` on the PATH from outside a project, each with a
// global prefix of its own so the machine's global folder is never touched.
describe('the command on the PATH', () => {
  const installFlags = ['--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts'];

  function onPath(prefix: string) {
    const env = { PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}` };
    const r = run('regolith', ['version'], tmpdir(), env);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(pkg.version);
    const which = run('sh', ['-c', 'command -v regolith'], tmpdir(), env);
    expect(which.stdout.trim()).toBe(join(prefix, 'bin', 'regolith'));
    // A decision needs the runtime dependencies (re2 for the regex built-ins) to resolve.
    const evaluated = run('regolith', ['eval', '--format', 'raw', 'regex.match("^a+$", "aaa")'], tmpdir(), env);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(evaluated.stdout.trim()).toBe('true');
  }

  it('npm install -g <tarball> installs the bin', async () => {
    const prefix = join(work, 'global-install');
    const r = await runAsync('npm', ['install', '-g', tarball, ...installFlags], work, { npm_config_prefix: prefix, RE2_DOWNLOAD_MIRROR: mirrorUrl });
    expect(r.code, r.output).toBe(0);
    onPath(prefix);
  }, 600_000);

  it('npm link in a clone links the bin to the clone', async () => {
    const prefix = join(work, 'global-link');
    // A clone after `npm ci && npm run build`: the package files, dist/ and the
    // dependencies `npm ci` installed (this checkout's, linked in).
    const clone = join(work, 'clone');
    cpSync(join(work, 'stage'), clone, { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    const r = await runAsync('npm', ['link', ...installFlags], clone, { npm_config_prefix: prefix, RE2_DOWNLOAD_MIRROR: mirrorUrl });
    expect(r.code, r.output).toBe(0);
    onPath(prefix);
    // A link, not a copy: a rebuilt clone is what the command runs.
    expect(statSync(join(prefix, 'lib/node_modules/regolith'), { throwIfNoEntry: false })).toBeDefined();
    expect(run('readlink', ['-f', join(prefix, 'lib/node_modules/regolith')], work).stdout.trim()).toBe(clone);
  }, 600_000);
});
