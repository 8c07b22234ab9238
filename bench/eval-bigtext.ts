// A decision from the JSON text of a ~10 KB input (a Terraform plan that the policy
// counts changes in, bench/policies/terraform.rego) against JSON.parse of that text alone.
// Regolith reads input text only where the policy can look (eval/input-needs.ts,
// value/json-sparse.ts) while still checking all of it. Also shown: the same decision
// from JSON.parse's value (what a caller holding a parsed object pays), and a hand-written
// JavaScript function from the text.
// Target: the decision from text costs less than JSON.parse of the text alone.
//
//   npx tsx bench/eval-bigtext.ts [resources per plan, default 8]

import { Regolith } from '../src/index.js';
import { policyText, fail } from './lib/regolith.js';
import { machine, race, ratio, table, us, type Contender } from './lib/stats.js';
import { terraformHandWritten, terraformPlan } from './scenarios/terraform.js';

const n = Number(process.argv[2] ?? 8);
const quick = process.env['BENCH_QUICK'] === '1';

const r = new Regolith().addModule('terraform.rego', policyText('terraform.rego'));
const pq = r.prepare('data.terraform.summary');
const texts = Array.from({ length: 32 }, (_, i) => JSON.stringify(terraformPlan(i + 1, n)));

const fromText = (json: string): unknown => pq.evaluate({ inputText: json })[0]?.expressions[0]?.value;
const fromValue = (json: string): unknown => pq.evaluate({ input: JSON.parse(json) })[0]?.expressions[0]?.value;

// Correctness first: the three ways agree on every plan, and the plans exercise the policy.
let denied = 0;
for (const [i, t] of texts.entries()) {
  const a = fromText(t);
  const b = fromValue(t);
  const c = terraformHandWritten(t);
  const sa = JSON.stringify(a);
  if (sa !== JSON.stringify(b) || sa !== JSON.stringify(c)) fail(`plan ${i}: from text ${JSON.stringify(a)}, from JSON.parse ${JSON.stringify(b)}, hand-written ${JSON.stringify(c)}`);
  if ((a as { deny: unknown[] }).deny.length) denied++;
}
if (denied === 0 || denied === texts.length) fail('every plan gets the same verdict; the plans do not exercise the policy');

const contenders: Contender<string>[] = [
  { name: 'JSON.parse only', fn: (j) => JSON.parse(j) },
  { name: 'Regolith from text', fn: fromText },
  { name: 'Regolith from JSON.parse', fn: fromValue },
  { name: 'hand-written from text', fn: terraformHandWritten },
];
const res = race(contenders, texts, quick ? { warmup: 300, rounds: 2, perRound: 300 } : { warmup: 3000, rounds: 8, perRound: 3000 });
const bytes = Math.round(texts.reduce((s, t) => s + Buffer.byteLength(t), 0) / texts.length);
const parse = res[0]!.median;
console.log(`eval-bigtext: a decision from the JSON text of a Terraform plan (${(bytes / 1024).toFixed(1)} KB on average, ${texts.length} plans, ${n} resources each; ${machine()})`);
console.log('target: Regolith from text below JSON.parse of the text alone\n');
console.log(
  table([
    ['', 'p50', 'p99', 'vs JSON.parse'],
    ...contenders.map((c, i) => [c.name, us(res[i]!.median), us(res[i]!.p99), ratio(res[i]!.median, parse)]),
  ]),
);
console.log(`\ntarget: ${res[1]!.median < parse ? 'met' : 'MISSED'}`);
