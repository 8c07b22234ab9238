// Scaling benchmarks (printed, not asserted):
//  - indexing: one decision over N rules keyed on input method and path (10 vs 10,000);
//    target: 10,000 rules cost at most 2x of 10 rules.
//  - data scale: a lookup of one user among N users in data (100 vs 1,000,000);
//    target: within 2x.
//
//   npx tsx bench/eval-scale.ts

import { Regolith } from '../src/index.js';
import { race } from './lib/stats.js';

function gateway(n: number): Regolith {
  const rules = ['package gw', '', 'default allow := false'];
  for (let i = 0; i < n; i++)
    rules.push(`allow if {\n  input.method == "${['GET', 'POST', 'PUT'][i % 3]}"\n  input.path == "/api/v1/resource${i}"\n  input.user != "blocked"\n}`);
  return new Regolith().addModule('gw.rego', rules.join('\n\n'));
}

function users(n: number): Regolith {
  const u: Record<string, { roles: string[]; tenant: string }> = {};
  for (let i = 0; i < n; i++) u[`user${i}`] = { roles: i % 7 ? ['viewer'] : ['admin'], tenant: `t${i % 13}` };
  return new Regolith()
    .addModule('u.rego', 'package u\n\nallow if {\n  user := data.users[input.user]\n  "admin" in user.roles\n  user.tenant == input.tenant\n}\n')
    .setData({ users: u });
}

const ns = (x: number) => (x / 1000).toFixed(2) + ' µs';
const opts = { warmup: 3000, rounds: 4, perRound: 3000 };

{
  const small = gateway(10).prepare('data.gw.allow');
  const t0 = Date.now();
  const big = gateway(10000).prepare('data.gw.allow');
  const compileMs = Date.now() - t0;
  const inputs = Array.from({ length: 30 }, (_, i) => JSON.stringify({ method: ['GET', 'POST', 'PUT'][i % 3], path: `/api/v1/resource${i % 10}`, user: 'u' }));
  const [a, b] = race(
    [
      { name: '10 rules', fn: (j: string) => small.evaluate({ input: JSON.parse(j) }) },
      { name: '10,000 rules', fn: (j: string) => big.evaluate({ input: JSON.parse(j) }) },
    ],
    inputs,
    opts,
  );
  console.log(`indexing: 10 rules p50 ${ns(a!.median)}, 10,000 rules p50 ${ns(b!.median)} (ratio ${(b!.median / a!.median).toFixed(2)}x, target <= 2x; compiling 10,000 rules took ${compileMs} ms)`);
}
{
  const small = users(100).prepare('data.u.allow');
  const big = users(1_000_000).prepare('data.u.allow');
  const inputs = Array.from({ length: 50 }, (_, i) => JSON.stringify({ user: `user${i * 7}`, tenant: `t${(i * 7) % 13}` }));
  const [a, b] = race(
    [
      { name: '100 users', fn: (j: string) => small.evaluate({ input: JSON.parse(j) }) },
      { name: '1,000,000 users', fn: (j: string) => big.evaluate({ input: JSON.parse(j) }) },
    ],
    inputs,
    opts,
  );
  console.log(`data scale: 100 users p50 ${ns(a!.median)}, 1,000,000 users p50 ${ns(b!.median)} (ratio ${(b!.median / a!.median).toFixed(2)}x, target <= 2x)`);
}
