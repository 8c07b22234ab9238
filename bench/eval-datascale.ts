// Data scale: a decision that looks up one user by id in a base document of 1,000,000
// users, against the same decision over 100 users. A lookup by key should not depend on
// the size of the document. Target: 1,000,000 users within 2x of 100 users.
//
//   npm run bench:data        or        npx tsx bench/eval-datascale.ts

import { Regolith } from '../src/index.js';
import { decide, fail } from './lib/regolith.js';
import { machine, race, ratio, table, us } from './lib/stats.js';

const TARGET = 2;
const POLICY = `package authz

default allow := false

allow if data.users[input.id].role == "admin"

allow if {
	user := data.users[input.id]
	user.role == "editor"
	input.action in {"read", "write"}
	user.team == input.team
}
`;

const ROLES = ['admin', 'editor', 'viewer', 'viewer', 'viewer'];
const TEAMS = ['core', 'infra', 'data', 'web', 'mobile', 'payments', 'search'];

const id = (i: number) => 'u' + String(i).padStart(7, '0');

/** n users keyed by id; built in one pass, values share their strings. */
function users(n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[id(i)] = { role: ROLES[i % 5], team: TEAMS[i % 7], active: true };
  return out;
}

function cases(n: number): { json: string; expect: boolean }[] {
  const at = (i: number, action = 'read', team = TEAMS[i % 7]) => JSON.stringify({ id: id(i), action, team, request_id: `r-${i}` });
  const pick = (role: string, from: number) => {
    for (let i = from; i < n; i++) if (ROLES[i % 5] === role) return i;
    throw new Error('no ' + role);
  };
  const mid = Math.floor(n / 2);
  return [
    { json: at(pick('admin', mid)), expect: true },
    { json: at(pick('editor', n - 10), 'write'), expect: true },
    { json: at(pick('editor', mid), 'delete'), expect: false },
    { json: at(pick('editor', 3), 'read', 'nope'), expect: false },
    { json: at(pick('viewer', mid)), expect: false },
    { json: at(n + 1), expect: false }, // unknown user
  ];
}

const mb = () => (process.memoryUsage().heapUsed / 1048576).toFixed(0) + ' MB';
console.log(`eval-datascale: look up one user by id in data.users (${machine()})`);
const time0 = Date.now();
const setups = [100, 1_000_000].map((n) => {
  const t0 = Date.now();
  const data = { users: users(n) };
  const r = new Regolith().addModule('authz.rego', POLICY).setData(data);
  const pq = r.prepare('data.authz.allow');
  const cs = cases(n);
  for (const c of cs) {
    const got = decide(pq, JSON.parse(c.json));
    if (got !== c.expect) fail(`${n} users: ${c.json}: expected ${c.expect}, got ${JSON.stringify(got)}`);
  }
  console.log(`${n.toLocaleString('en-US')} users: built and verified in ${Date.now() - t0} ms (heap ${mb()})`);
  return { n, pq, json: cs.map((c) => c.json) };
});

const results = setups.map((s) => race([{ name: String(s.n), fn: (j: string) => decide(s.pq, JSON.parse(j)) }], s.json, { warmup: 3000, rounds: 6, perRound: 3000 })[0]!);
const [small, large] = results as [(typeof results)[0], (typeof results)[0]];
console.log('');
console.log(
  table([
    ['users', 'p50', 'p99'],
    ['100', us(small.median), us(small.p99)],
    ['1,000,000', us(large.median), us(large.p99)],
  ]),
);
const r = large.median / small.median;
console.log(`\nratio 1,000,000 / 100 users (p50): ${ratio(large.median, small.median)}  target <= ${TARGET}x: ${r <= TARGET ? 'met' : 'MISSED'}`);
console.log(`(total ${((Date.now() - time0) / 1000).toFixed(1)} s, heap ${mb()})`);
