// Data filtering against real databases: for a corpus of filter policies, the generated
// WHERE clause selects exactly the rows whose per-row decision (full evaluation with that
// row as input) is true — on PostgreSQL, MariaDB and SQLite, over a few hundred generated
// rows with NULLs, mixed case, quotes, backslashes and LIKE wildcards in the data.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Regolith } from '../../../src/index.js';
import { translateFilter, type Target } from '../../../src/partial/filter/index.js';
import { mariadbInstalled, postgresBin, startMariaDB, startPostgres, startSQLite, type Database } from './databases.js';
import { FILTERS, KNOWN, DATA, ROWS, load } from './filter-corpus.js';

/** The ids of rows the policy allows, each decided by full evaluation. */
function allowed(module: string): number[] {
  const pq = new Regolith().addModule('filters.rego', module).setData(DATA).prepare('data.filters.include');
  return ROWS.filter((row) => {
    const r = pq.evaluate({ input: { ...KNOWN, fruits: row } });
    return r.length > 0 && r[0]!.expressions[0]!.value !== false;
  }).map((r) => r.id);
}

function where(module: string, target: Target): string {
  const p = new Regolith().addModule('filters.rego', module).setData(DATA).prepare('data.filters.include').partial({ input: KNOWN, unknowns: ['input.fruits'] });
  return (translateFilter({ queries: p.queries, supportCount: p.support.length }, target) as { query: string }).query;
}

const servers: [Database['name'], () => Promise<Database>, string | undefined][] = [
  ['postgresql', startPostgres, postgresBin() ? undefined : 'PostgreSQL binaries are missing (.ci/run installs postgresql)'],
  ['mysql', startMariaDB, mariadbInstalled() ? undefined : 'MariaDB binaries are missing (.ci/run installs mariadb-server)'],
  ['sqlite', startSQLite, undefined],
];

for (const [name, start, missing] of servers) {
  describe.skipIf(!!missing)(`data filtering on ${name}${missing ? ` (skipped: ${missing})` : ''}`, () => {
    let db: Database;
    beforeAll(async () => {
      db = await start();
      await load(db);
    }, 60000);
    afterAll(async () => db?.close());

    for (const [title, module] of FILTERS) {
      it(title, async () => {
        const clause = where(module, { kind: 'sql', dialect: name });
        const got = await db.ids(`SELECT id FROM fruits ${clause} ORDER BY id`);
        expect(got, `WHERE clause: ${clause}`).toEqual(allowed(module));
      });
    }
  });
}
if (servers.some(([, , m]) => m)) console.warn(servers.filter(([, , m]) => m).map(([n, , m]) => `${n}: ${m}`).join('\n'));
