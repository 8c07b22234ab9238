// Filter policies over input.fruits (the table) with known input (user, fav, max) and data,
// and the generated rows of the table.

import fc from 'fast-check';
import type { Database } from './databases.js';

export const KNOWN = { user: 'bob', fav: 'Apple', max: 12 };
export const DATA = { tenants: { bob: ['t1', 't2'], amy: ['t3'] } };

const P = 'package filters\nimport rego.v1\n';

export const FILTERS: [string, string][] = [
  ['a range', `${P}include if input.fruits.price > 10`],
  ['a range with the operands reversed (10 <= price means price >= 10)', `${P}include if 10 <= input.fruits.price`],
  ['both bounds', `${P}include if { input.fruits.price >= 3; input.fruits.price <= 8 }`],
  ['equality with known input, case-sensitive', `${P}include if input.fruits.name == input.fav`],
  ['not equal holds on NULL, as null != 5 in Rego', `${P}include if input.fruits.price != 5`],
  ['not less than', `${P}include if not input.fruits.price < 7`],
  ['less than holds on NULL (null sorts first)', `${P}include if input.fruits.price < 4`],
  ['in a list from data', `${P}include if input.fruits.tenant in data.tenants[input.user]`],
  ['not in a set', `${P}include if not input.fruits.tenant in {"t1"}`],
  ['in a list with null', `${P}include if input.fruits.name in ["Apple", null]`],
  ['startswith', `${P}include if startswith(input.fruits.name, "a")`],
  ['startswith a LIKE wildcard', `${P}include if startswith(input.fruits.name, "a%")`],
  ['endswith a LIKE wildcard', `${P}include if endswith(input.fruits.name, "%")`],
  ['contains an underscore', `${P}include if contains(input.fruits.name, "_")`],
  ['not startswith holds on NULL', `${P}include if not startswith(input.fruits.name, "a")`],
  ['a quote', `${P}include if input.fruits.name == "o'neil"`],
  ['a backslash', `${P}include if input.fruits.name == "x\\\\y"`],
  ['the empty string', `${P}include if input.fruits.name == ""`],
  ['a bare boolean column (null counts as true)', `${P}include if input.fruits.public`],
  ['not a boolean column', `${P}include if not input.fruits.public`],
  ['equal to true', `${P}include if input.fruits.public == true`],
  ['is null / is not null', `${P}include if input.fruits.owner == null\ninclude if { input.fruits.owner != null; input.fruits.price == 1 }`],
  ['column to column', `${P}include if input.fruits.owner == input.fruits.name`],
  ['column not equal to column', `${P}include if input.fruits.owner != input.fruits.name`],
  ['ownership or public, default false', `${P}default include := false\ninclude if input.fruits.owner == input.user\ninclude if { input.fruits.public == true; not input.fruits.price > 15 }`],
  ['tenancy and ownership', `${P}include if { input.fruits.tenant in data.tenants[input.user]; input.fruits.owner == input.user }`],
  ['a helper function', `${P}cheap(p) if p < 5\ninclude if cheap(input.fruits.price)`],
  ['else chain', `${P}level := "high" if input.fruits.price > 15 else := "low" if input.fruits.price < 5 else := "mid"\ninclude if level == "mid"`],
  ['a known bound', `${P}include if input.fruits.price < input.max`],
  ['not over a helper with two conditions', `${P}bad if { input.fruits.tenant == "t3"; input.fruits.price > 2 }\ninclude if not bad`],
];

export const COLUMNS = ['id', 'name', 'price', 'tenant', 'owner', 'public'] as const;
export type Row = { id: number; name: string | null; price: number | null; tenant: string | null; owner: string | null; public: boolean | null };

export const ROWS: Row[] = fc
  .sample(
    fc.record({
      name: fc.constantFrom('apple', 'Apple', 'APPLE', 'banana', 'a%b', 'a_b', 'axb', 'ab', "o'neil", 'x\\y', 'cherry', '', 'b%', null),
      price: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 20 })),
      tenant: fc.constantFrom('t1', 't2', 't3', null),
      owner: fc.constantFrom('bob', 'amy', 'apple', null),
      public: fc.constantFrom(true, false, null),
    }),
    { numRuns: 300, seed: 42 },
  )
  .map((r, i) => ({ id: i + 1, ...r }));

export const DDL: Record<Database['name'], string> = {
  postgresql: 'CREATE TABLE fruits (id INTEGER PRIMARY KEY, name TEXT, price INTEGER, tenant TEXT, owner TEXT, public BOOLEAN)',
  mysql: 'CREATE TABLE fruits (id INT PRIMARY KEY, name VARCHAR(40), price INT, tenant VARCHAR(10), owner VARCHAR(20), public BOOLEAN) CHARACTER SET utf8mb4',
  sqlite: 'CREATE TABLE fruits (id INTEGER PRIMARY KEY, name TEXT, price INTEGER, tenant TEXT, owner TEXT, public BOOLEAN)',
};

export async function load(db: Database): Promise<void> {
  await db.exec(DDL[db.name]);
  const ph = (i: number) => (db.name === 'postgresql' ? `$${i + 1}` : '?');
  for (const r of ROWS) {
    const vals = COLUMNS.map((c) => (db.name === 'sqlite' && typeof r[c] === 'boolean' ? Number(r[c]) : r[c]));
    await db.exec(`INSERT INTO fruits (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => ph(i)).join(', ')})`, vals);
  }
}

