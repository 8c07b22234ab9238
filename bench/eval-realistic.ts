// In-process cost of one prepared decision over realistic policies (bench/policies/),
// from the JSON text of the input (JSON.parse included, as a server does), against a
// hand-written JavaScript function computing the same decision from the same text.
// Target: Regolith within 2x of hand-written (issue 30; it was 5x before). Also shown: the same
// decision from the text through the library's inputText, which reads only what the
// policy can look at.
//
// Before timing anything it checks, on every input, that the policy and the
// hand-written function agree (and match the answers written down by hand); it aborts
// if they differ.
//
//   npm run bench:eval        or        npx tsx bench/eval-realistic.ts [scenario-filter]
//
// BENCH_EVAL_BASELINE=<another checkout> (e.g. `git archive <commit>` unpacked, with
// node_modules linked) adds that tree's Regolith as one more contender, in the same
// interleaved rounds: before and after in one run, under the same load.

import { allScenarios, type Scenario } from './scenarios/index.js';
import { fail, fromJSON, load, policyText, same } from './lib/regolith.js';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { machine, race, ratio, table, us, type Contender } from './lib/stats.js';
import { loadavg } from 'node:os';

const TARGET = 2;
const filter = process.argv[2]?.toLowerCase();
const quick = process.env['BENCH_QUICK'] === '1';
const baselineDir = process.env['BENCH_EVAL_BASELINE'];

/** The baseline tree's library, loaded through tsx as this one is. */
interface BaselineRegolith {
  addModule(file: string, text: string): BaselineRegolith;
  setData(data: unknown): BaselineRegolith;
  prepare(query: string): { evaluate(o: { input: unknown }): { expressions: { value: unknown }[] }[] };
}
const Baseline: (new () => BaselineRegolith) | undefined = baselineDir
  ? ((await import(pathToFileURL(join(resolve(baselineDir), 'src/index.ts')).href)) as { Regolith: new () => BaselineRegolith }).Regolith
  : undefined;

interface Row {
  name: string;
  bytes: number;
  regolith: { median: number; p99: number };
  text: { median: number };
  hand: { median: number; p99: number };
  parse: { median: number };
  baseline?: { median: number };
}

function verify(s: Scenario, regolith: (json: string) => unknown, hand: (json: string) => unknown): void {
  const seen = new Set<string>();
  for (const [i, c] of s.cases.entries()) {
    const a = regolith(c.json);
    const b = hand(c.json);
    if (!same(a, b)) fail(`${s.name}: case ${i}: policy says ${JSON.stringify(a)}, hand-written says ${JSON.stringify(b)}\ninput: ${c.json}`);
    if (c.expect !== undefined) {
      const ok = typeof c.expect === 'number' ? Array.isArray(a) && a.length === c.expect : same(a, c.expect);
      if (!ok) fail(`${s.name}: case ${i}: expected ${JSON.stringify(c.expect)}, both say ${JSON.stringify(a)}\ninput: ${c.json}`);
    }
    seen.add(JSON.stringify(typeof a === 'boolean' ? a : Array.isArray(a) && a.length > 0));
  }
  if (seen.size < 2) fail(`${s.name}: every input gets the same decision; the inputs do not exercise the policy`);
}

function run(s: Scenario): Row {
  const r = load(s.policy, s.data);
  const constants: Record<string, unknown> = {};
  for (const q of s.constants ?? []) constants[q] = r.decide(q);
  const pq = r.prepare(s.query);
  const regolith = fromJSON(pq, s.undefinedAs);
  // the library's own text input (reads only what the policy can look at, see eval-bigtext.ts)
  const text = (json: string): unknown => {
    const v = pq.evaluate({ inputText: json })[0]?.expressions[0]?.value;
    return v === undefined ? s.undefinedAs : v;
  };
  const hand = s.handWritten(s.data, constants);
  verify(s, regolith, hand);
  verify(s, text, hand);
  const inputs = s.cases.map((c) => c.json);
  const contenders: Contender<string>[] = [
    { name: 'regolith', fn: regolith },
    { name: 'hand-written', fn: hand },
    { name: 'JSON.parse only', fn: (j) => JSON.parse(j) },
    { name: 'regolith from inputText', fn: text },
  ];
  if (Baseline) {
    const pqb = new Baseline().addModule(s.policy, policyText(s.policy)).setData(s.data).prepare(s.query);
    const baseline = (json: string): unknown => {
      const v = pqb.evaluate({ input: JSON.parse(json) })[0]?.expressions[0]?.value;
      return v === undefined ? s.undefinedAs : v;
    };
    verify(s, baseline, hand);
    contenders.push({ name: 'regolith (baseline tree)', fn: baseline });
  }
  const [rs, hs, ps, ts, bs] = race(contenders, inputs, quick ? { warmup: 500, rounds: 2, perRound: 500 } : { warmup: 5000, rounds: 6, perRound: 4000 });
  const bytes = Math.round(inputs.reduce((n, j) => n + Buffer.byteLength(j), 0) / inputs.length);
  return { name: s.name, bytes, regolith: rs!, text: ts!, hand: hs!, parse: ps!, baseline: bs };
}

console.log(`eval-realistic: one prepared decision from the input's JSON text (${machine()}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})`);
if (baselineDir) console.log(`baseline tree: ${resolve(baselineDir)}`);
console.log(`target: Regolith median within ${TARGET}x of the hand-written JavaScript\n`);
const rows: Row[] = [];
for (const s of allScenarios()) {
  if (filter && !s.name.toLowerCase().includes(filter) && !s.policy.includes(filter)) continue;
  const t0 = Date.now();
  const row = run(s);
  rows.push(row);
  console.log(`${s.name}: ${s.cases.length} inputs verified, measured in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
console.log('');
console.log(
  table([
    ['policy', 'input', 'regolith p50', 'p99', 'hand-written p50', 'p99', 'JSON.parse p50', 'ratio p50', 'target', 'from inputText p50', 'ratio', ...(Baseline ? ['baseline p50', 'ratio'] : [])],
    ...rows.map((r) => [
      r.name,
      `${(r.bytes / 1024).toFixed(1)} KB`,
      us(r.regolith.median),
      us(r.regolith.p99),
      us(r.hand.median),
      us(r.hand.p99),
      us(r.parse.median),
      ratio(r.regolith.median, r.hand.median),
      r.regolith.median <= TARGET * r.hand.median ? 'met' : 'MISSED',
      us(r.text.median),
      ratio(r.text.median, r.hand.median),
      ...(r.baseline ? [us(r.baseline.median), ratio(r.baseline.median, r.hand.median)] : []),
    ]),
  ]),
);
