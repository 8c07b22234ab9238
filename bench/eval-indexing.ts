// Rule indexing: a policy of 10,000 `allow` rules, each keyed on input.method and
// input.path, against the same shape with 10 rules. With rules indexed on equality
// against constants, a decision should touch only the candidate rules and cost about
// the same in both. Target: 10,000 rules within 2x of 10 rules.
//
//   npm run bench:index        or        npx tsx bench/eval-indexing.ts

import { Regolith } from '../src/index.js';
import { decide, fail } from './lib/regolith.js';
import { machine, race, ratio, table, us } from './lib/stats.js';

const TARGET = 2;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];

function policy(n: number): string {
  const lines = ['package idx', '', 'default allow := false', ''];
  for (let i = 0; i < n; i++) {
    lines.push(`allow if {\n\tinput.method == "${METHODS[i % 4]}"\n\tinput.path == ["api", "v1", "r${i}"]\n}\n`);
  }
  return lines.join('\n');
}

function inputs(n: number): { input: unknown; expect: boolean }[] {
  // A hit near the start, in the middle, at the end; a miss on the method; a miss on the path.
  const at = (i: number, method = METHODS[i % 4]!) => ({ method, path: ['api', 'v1', `r${i}`], user: 'alice', headers: { accept: 'application/json' } });
  return [
    { input: at(0), expect: true },
    { input: at(Math.floor(n / 2)), expect: true },
    { input: at(n - 1), expect: true },
    { input: at(n - 1, 'PATCH'), expect: false },
    { input: at(n + 5), expect: false },
  ];
}

const time0 = Date.now();
const sizes = [10, 10_000];
const prepared = sizes.map((n) => {
  const t0 = Date.now();
  const r = new Regolith();
  r.addModule(`idx${n}.rego`, policy(n));
  const pq = r.prepare('data.idx.allow');
  const cases = inputs(n);
  for (const c of cases) {
    const got = decide(pq, c.input);
    if (got !== c.expect) fail(`${n} rules: input ${JSON.stringify(c.input)}: expected ${c.expect}, got ${JSON.stringify(got)}`);
  }
  console.log(`${n} rules: parsed, compiled and verified in ${Date.now() - t0} ms`);
  return { n, pq, json: cases.map((c) => JSON.stringify(c.input)) };
});

console.log(`\neval-indexing: one decision from the input's JSON text over N rules (${machine()})`);
// Time-boxed: few samples if a decision over 10,000 rules is slow.
const probeT0 = process.hrtime.bigint();
decide(prepared[1]!.pq, JSON.parse(prepared[1]!.json[2]!));
const probeUs = Number(process.hrtime.bigint() - probeT0) / 1000;
const perRound = Math.max(20, Math.min(3000, Math.floor(4_000_000 / Math.max(probeUs, 1) / 6)));
const results = prepared.map((p) =>
  race([{ name: `${p.n}`, fn: (j: string) => decide(p.pq, JSON.parse(j)) }], p.json, { warmup: Math.min(perRound, 1000), rounds: 6, perRound }),
);
const [small, large] = [results[0]![0]!, results[1]![0]!];
console.log(
  table([
    ['rules', 'p50', 'p99', 'samples'],
    ['10', us(small.median), us(small.p99), String(small.samples)],
    ['10,000', us(large.median), us(large.p99), String(large.samples)],
  ]),
);
const r = large.median / small.median;
console.log(`\nratio 10,000 / 10 rules (p50): ${ratio(large.median, small.median)}  target <= ${TARGET}x: ${r <= TARGET ? 'met' : 'MISSED'}`);
console.log(`(total ${((Date.now() - time0) / 1000).toFixed(1)} s)`);
