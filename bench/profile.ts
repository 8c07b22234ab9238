// Profiles one benchmark with V8's CPU profiler and prints where the time goes, by
// source file and line. The benchmark is bundled with esbuild (with a source map) first,
// because code loaded through tsx is collapsed onto one line and a profile of it has no
// usable line numbers.
//   npx tsx bench/profile.ts eval-realistic [args...]     (e.g. "k8s" to profile one policy)
//   npx tsx bench/profile.ts http [seconds]                (profiles the server process)
// Bundles go to node_modules/.cache/regolith-bench/ (lib/bundle.ts), .cpuprofile files
// (open them in Chrome DevTools) to node_modules/.cache/regolith-bench-prof/.

import { spawnSync } from 'node:child_process';
import { bundle } from './lib/bundle.js';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [name, ...args] = process.argv.slice(2);
if (!name) {
  console.error('usage: profile.ts <benchmark name, e.g. eval-realistic> [args...]');
  process.exit(2);
}
const root = fileURLToPath(new URL('..', import.meta.url));
// Inside node_modules so that the bundle resolves the project's packages (and git ignores it).
const out = join(root, 'node_modules/.cache/regolith-bench-prof');
const profDir = join(out, `${name}-${Date.now()}`);
mkdirSync(profDir, { recursive: true });

const main = bundle(`${name}.ts`);
const env: NodeJS.ProcessEnv = { ...process.env, BENCH_DIR: join(root, 'bench') };
let profileWho: 'main' | 'server' = 'main';
if (name === 'http') {
  env['BENCH_SERVER_BUNDLE'] = bundle('http-server.ts');
  env['BENCH_CPU_PROF'] = profDir;
  profileWho = 'server';
}
const nodeArgs = profileWho === 'main' ? ['--cpu-prof', '--cpu-prof-dir', profDir, main, ...args] : [main, ...args];
const r = spawnSync(process.execPath, nodeArgs, { stdio: 'inherit', env, cwd: root });
if (r.status !== 0) process.exit(r.status ?? 1);

// The server runs twice in the http benchmark (ceiling, then Regolith): the last profile is Regolith's.
const profiles = readdirSync(profDir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => join(profDir, f))
  .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
const pick = profileWho === 'server' ? profiles[profiles.length - 1] : profiles.sort((a, b) => statSync(b).size - statSync(a).size)[0];
if (!pick) {
  console.error('no profile written');
  process.exit(1);
}
console.log(`\nprofile: ${pick}\n`);
spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench/profile-top.ts'), pick, '30'], { stdio: 'inherit', cwd: root });
