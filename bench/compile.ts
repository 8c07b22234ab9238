// bench:compile — partial evaluation of a data-filtering policy (tenancy + roles + ownership
// over three tables): the time to turn it into residual conditions per request, after
// warm-up, next to full evaluation of the same decision for one row (the per-row cost that
// filtering replaces). Prints the residuals once so the figure is about a real answer.

import { formatBody } from '../src/lang/index.js';
import { load } from './lib/regolith.js';
import { sample, summarize, us } from './lib/stats.js';

const users: Record<string, unknown> = {};
for (let i = 0; i < 200; i++) {
  users[`u${i}`] = { tenant: `t${i % 7}`, roles: i % 5 === 0 ? ['admin'] : i % 3 === 0 ? ['billing', 'viewer'] : ['viewer'], teams: [`team${i % 4}`, `team${(i + 1) % 4}`], limit: 1000 + i };
}
const policy = load('filters.rego', { users });
const tables = ['documents', 'projects', 'invoices'];
const prepared = tables.map((t) => policy.prepare(`data.filters.${t} == true`));
const inputs = Array.from({ length: 64 }, (_, i) => ({ user: `u${(i * 37) % 200}` }));

for (const [i, t] of tables.entries()) {
  const r = prepared[i]!.partial({ input: { user: 'u15' }, unknowns: [`input.${t}`] });
  console.log(`-- ${t} for u15: ${r.queries.length} residual quer${r.queries.length === 1 ? 'y' : 'ies'}, ${r.support.length} support modules`);
  for (const q of r.queries) console.log('   ' + formatBody(q).replace(/\n/g, '; '));
}

const partialAll = (input: { user: string }) => prepared.map((p, i) => p.partial({ input, unknowns: [`input.${tables[i]}`] }));
const row = { tenant_id: 't3', owner: 'u15', public: true, archived: false, team: 'team1', amount: 10 };
const fullAll = (input: { user: string }) => prepared.map((p, i) => p.evaluate({ input: { ...input, [tables[i]!]: row } }));

for (let i = 0; i < 300; i++) {
  partialAll(inputs[i % inputs.length]!);
  fullAll(inputs[i % inputs.length]!);
}
const pe = summarize(sample(partialAll, inputs, 2000));
const full = summarize(sample(fullAll, inputs, 2000));
console.log(`\npartial evaluation, 3 tables per request (3 calls): median ${us(pe.median)}  p99 ${us(pe.p99)}`);
console.log(`full evaluation of one row, 3 tables:      median ${us(full.median)}  p99 ${us(full.p99)}`);
console.log(`target: partial evaluation well under 1 ms after warm-up -> ${pe.median / 3 < 1e6 ? 'met' : 'NOT met'}`);
