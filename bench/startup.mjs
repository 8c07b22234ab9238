// Start-up cost of the built CLI and library, side by side with bare `node -e 0`:
//   npm run bench:startup        or        node bench/startup.mjs [runs]   (after npm run build)
//
// Each contender runs `runs` times (default 9, at least 5), interleaved round by round so
// that a change in the machine's load hits all of them alike. A run is timed by bash
// around the child process: wall time from $EPOCHREALTIME, CPU time (user + sys) from
// `times` (the children's rusage). Medians are printed with their ratio to bare node.
// `regolith test` runs over a generated library of 50 packages (a policy and a _test.rego
// each) in a temporary directory; its cost is compared with evaluating the same tests
// in-process through the library, so that the per-test overhead of the command is visible.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'dist/cli/main.js');
const LIB = join(ROOT, 'dist/index.js');
const FIX = join(ROOT, 'bench/startup');
const RUNS = Math.max(5, Number(process.argv[2] ?? 9));
const PACKAGES = 50;

if (!existsSync(BIN)) {
  console.error('dist/cli/main.js is missing: run `npm run build` first (npm run bench:startup does)');
  process.exit(1);
}

// ---- the generated template library ---------------------------------------------------

function policyText(i) {
  return `package lib.t${i}

import rego.v1

# Template ${i}: containers must come from an allowed registry, set resource limits and
# not run privileged; labels listed in the parameters are required.

default allowed_registries := ["registry.example.com/", "ghcr.io/example/"]

registries := object.get(input.parameters, "registries", allowed_registries)

violation contains msg if {
	some c in input.review.object.spec.containers
	not any_prefix(c.image, registries)
	msg := sprintf("t${i}: container %q uses image %q from a registry that is not allowed", [c.name, c.image])
}

violation contains msg if {
	some c in input.review.object.spec.containers
	not c.resources.limits.memory
	msg := sprintf("t${i}: container %q has no memory limit", [c.name])
}

violation contains msg if {
	some c in input.review.object.spec.containers
	c.securityContext.privileged == true
	msg := sprintf("t${i}: container %q is privileged", [c.name])
}

violation contains msg if {
	some label in object.get(input.parameters, "labels", [])
	not input.review.object.metadata.labels[label]
	msg := sprintf("t${i}: missing label %q", [label])
}

any_prefix(s, prefixes) if startswith(s, prefixes[_])
`;
}

function testText(i) {
  return `package lib.t${i}_test

import rego.v1

import data.lib.t${i}

pod(containers, labels) := {"review": {"object": {"metadata": {"labels": labels}, "spec": {"containers": containers}}}, "parameters": {"labels": ["team"]}}

good := {"name": "app", "image": "registry.example.com/app:1.${i}", "resources": {"limits": {"memory": "128Mi"}}}

test_good_pod_passes if {
	count(t${i}.violation) == 0 with input as pod([good], {"team": "a"})
}

test_foreign_registry_is_reported if {
	vs := t${i}.violation with input as pod([object.union(good, {"image": "docker.io/evil:latest"})], {"team": "a"})
	count(vs) == 1
}

test_missing_limit_is_reported if {
	vs := t${i}.violation with input as pod([object.remove(good, ["resources"])], {"team": "a"})
	some v in vs
	contains(v, "no memory limit")
}

test_privileged_and_unlabelled if {
	vs := t${i}.violation with input as pod([object.union(good, {"securityContext": {"privileged": true}})], {})
	count(vs) == 2
}
`;
}

const work = mkdtempSync(join(tmpdir(), 'regolith-bench-startup-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const libDir = join(work, 'library');
const files = [];
for (let i = 0; i < PACKAGES; i++) {
  const dir = join(libDir, `t${i}`);
  mkdirSync(dir, { recursive: true });
  files.push([join(dir, 'policy.rego'), policyText(i)], [join(dir, 'policy_test.rego'), testText(i)]);
}
for (const [f, text] of files) writeFileSync(f, text);
const TESTS = PACKAGES * 4;

// ---- the contenders ------------------------------------------------------------------------

const contenders = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'regolith version', args: [BIN, 'version'], expect: /^Version: / },
  { name: 'regolith parse small.rego', args: [BIN, 'parse', join(FIX, 'small/policy.rego')], expect: /^module/ },
  {
    name: "regolith eval -d small/ -i input.json 'data.x.allow'",
    short: 'regolith eval',
    args: [BIN, 'eval', '-d', join(FIX, 'small'), '-i', join(FIX, 'input.json'), '--format', 'raw', 'data.x.allow'],
    expect: /^true\n$/,
  },
  { name: `regolith test (${PACKAGES} packages, ${TESTS} tests)`, short: 'regolith test', args: [BIN, 'test', libDir], expect: new RegExp(`PASS: ${TESTS}/${TESTS}`) },
  { name: "node -e \"import('dist/index.js')\"", short: 'library import', args: ['--input-type=module', '-e', `await import(${JSON.stringify(LIB)})`] },
];

// Correctness first: every command does what it should before anything is timed.
for (const c of contenders) {
  const r = spawnSync(process.execPath, c.args, { encoding: 'utf8', cwd: work });
  if (r.status !== 0 || (c.expect && !c.expect.test(r.stdout))) {
    console.error(`${c.name} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
    process.exit(1);
  }
}

const TIMER = 's=$EPOCHREALTIME; "$@" >/dev/null 2>&1 </dev/null; rc=$?; e=$EPOCHREALTIME; echo "$s $e $rc"; times';

function seconds(t) {
  const m = /^(\d+)m([\d.]+)s$/.exec(t);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** One timed run: { wall, cpu } in milliseconds. */
function timeOnce(args) {
  const r = spawnSync('bash', ['-c', TIMER, 'bash', process.execPath, ...args], { encoding: 'utf8', cwd: work, env: { ...process.env, LC_ALL: 'C' } });
  const [first, , children] = r.stdout.trim().split('\n');
  const [s, e, rc] = first.split(' ');
  if (rc !== '0') throw new Error(`${args.join(' ')} exited with ${rc}`);
  const [user, sys] = children.trim().split(/\s+/).map(seconds);
  return { wall: (Number(e) - Number(s)) * 1000, cpu: (user + sys) * 1000 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const samples = contenders.map(() => ({ wall: [], cpu: [] }));
for (let round = 0; round < RUNS; round++) {
  contenders.forEach((c, i) => {
    const t = timeOnce(c.args);
    samples[i].wall.push(t.wall);
    samples[i].cpu.push(t.cpu);
  });
}

// ---- the same tests in-process ----------------------------------------------------------

const { Regolith } = await import(LIB);
function inProcess() {
  const t0 = performance.now();
  const r = new Regolith();
  for (const [f, text] of files) r.addModule(f, text);
  r.compile();
  const queries = [];
  for (let i = 0; i < PACKAGES; i++) {
    for (const name of ['test_good_pod_passes', 'test_foreign_registry_is_reported', 'test_missing_limit_is_reported', 'test_privileged_and_unlabelled']) {
      queries.push(r.prepare(`data.lib.t${i}_test.${name}`));
    }
  }
  const t1 = performance.now();
  let passed = 0;
  for (const q of queries) if (q.evaluate({})[0]?.expressions[0]?.value === true) passed++;
  const t2 = performance.now();
  if (passed !== TESTS) throw new Error(`in-process: ${passed}/${TESTS} tests passed`);
  return { compile: t1 - t0, evaluate: t2 - t1 };
}
inProcess(); // warm-up, as the CLI's own figures include no JIT warm-up this is the floor
const inproc = [];
for (let i = 0; i < RUNS; i++) inproc.push(inProcess());
const cold = (() => {
  // A fresh process doing the same (library import + parse + compile + evaluate), timed inside.
  const script = `const t0 = performance.now(); const { Regolith } = await import(${JSON.stringify(LIB)});
const fs = await import('node:fs'); const files = ${JSON.stringify(files.map(([f]) => f))};
const t1 = performance.now(); const r = new Regolith(); for (const f of files) r.addModule(f, fs.readFileSync(f, 'utf8'));
let n = 0; for (let i = 0; i < ${PACKAGES}; i++) for (const t of ['test_good_pod_passes', 'test_foreign_registry_is_reported', 'test_missing_limit_is_reported', 'test_privileged_and_unlabelled'])
  if (r.prepare('data.lib.t' + i + '_test.' + t).evaluate({})[0]?.expressions[0]?.value === true) n++;
const t2 = performance.now(); console.log(JSON.stringify({ import: t1 - t0, work: t2 - t1, n }));`;
  const xs = [];
  for (let i = 0; i < Math.min(RUNS, 5); i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: work });
    xs.push(JSON.parse(r.stdout));
  }
  return { import: median(xs.map((x) => x.import)), work: median(xs.map((x) => x.work)) };
})();

// ---- report ------------------------------------------------------------------------------

const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`Start-up of the built CLI (${RUNS} interleaved runs each, medians; node ${process.version}; load average ${load})\n`);
const base = { wall: median(samples[0].wall), cpu: median(samples[0].cpu) };
const rows = [['command', 'CPU ms', 'x node', 'wall ms', 'x node', 'target']];
contenders.forEach((c, i) => {
  const wall = median(samples[i].wall);
  const cpu = median(samples[i].cpu);
  const short = c.short ?? c.name;
  const target = short === 'regolith version' || short.startsWith('regolith parse') ? 2 : short === 'regolith eval' ? 3 : undefined;
  const verdict = target === undefined ? '' : `<= ${target}x: ${cpu / base.cpu <= target && wall / base.wall <= target ? 'met' : 'MISSED'}`;
  rows.push([c.name, cpu.toFixed(0), (cpu / base.cpu).toFixed(2), wall.toFixed(0), (wall / base.wall).toFixed(2), verdict]);
});
const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
for (const r of rows) console.log(r.map((x, j) => (j === 0 || j === 5 ? x.padEnd(widths[j]) : x.padStart(widths[j]))).join('  '));

const testIdx = contenders.findIndex((c) => c.short === 'regolith test');
const testWall = median(samples[testIdx].wall);
const testCpu = median(samples[testIdx].cpu);
const ip = { compile: median(inproc.map((x) => x.compile)), evaluate: median(inproc.map((x) => x.evaluate)) };
console.log(`\nregolith test over ${PACKAGES} packages (${files.length} files, ${TESTS} tests):`);
console.log(`  the command:               ${testWall.toFixed(0)} ms wall, ${testCpu.toFixed(0)} ms CPU = ${(testWall / TESTS).toFixed(2)} ms per test (bare node start-up: ${base.wall.toFixed(0)} ms)`);
console.log(`  fresh process, in-process: import ${cold.import.toFixed(0)} ms + parse, compile and evaluate ${cold.work.toFixed(0)} ms (timed inside the process)`);
console.log(`  warm, in-process:          parse + compile ${ip.compile.toFixed(1)} ms, evaluate ${ip.evaluate.toFixed(1)} ms = ${((ip.evaluate / TESTS) * 1000).toFixed(0)} µs per test`);
const beyondWarm = testWall - base.wall - cold.import - ip.compile - ip.evaluate;
console.log(`  the command beyond node start-up, library import and warm in-process work: ${beyondWarm.toFixed(0)} ms = ${(beyondWarm / TESTS).toFixed(2)} ms per test (cold code, discovery, reporting)`);
const vsCold = testWall - base.wall - cold.import - cold.work;
console.log(`  the command against a fresh process doing the same through the library: ${vsCold >= 0 ? '+' : ''}${vsCold.toFixed(0)} ms (${(vsCold / TESTS).toFixed(2)} ms per test)`);
