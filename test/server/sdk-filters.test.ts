// The TypeScript SDKs' data-filtering calls against a running server, unchanged:
// @open-policy-agent/opa and @styra/opa getFilters / getMultipleFilters (the Prisma
// conversion included). The SQLite filter the SDK returns selects the same rows as the
// per-row decisions.

import { OPAClient } from '@open-policy-agent/opa';
import { OPAClient as StyraClient } from '@styra/opa';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { RegolithEngine } from '../../src/engine/store-engine.js';
import { startSQLite, type Database } from '../partial/filter/databases.js';
import { DATA, KNOWN, ROWS, load } from '../partial/filter/filter-corpus.js';
import { req } from './helpers.js';

const POLICY = `# METADATA
# scope: package
# compile:
#   unknowns: [input.fruits]
#   mask_rule: masks
package filters

default include := false

include if input.fruits.owner == input.user

include if {
	input.fruits.tenant in data.tenants[input.user]
	input.fruits.price < input.max
	input.fruits.name != "apple"
}

masks := {"fruits": {"owner": {"replace": {"value": "***"}}}} if input.user != "admin"
`;

let s: RunningServer;
let url: string;
let db: Database;
beforeAll(async () => {
  const engine = new RegolithEngine();
  s = await startServer({ addr: '127.0.0.1:0', engine, logger: pino({ level: 'silent' }), processMetrics: false });
  expect((await req(s, 'PUT', '/v1/policies/filters.rego', POLICY, { 'content-type': 'text/plain' })).status).toBe(200);
  expect((await req(s, 'PUT', '/v1/data/tenants', JSON.stringify(DATA.tenants))).status).toBe(204);
  url = `http://127.0.0.1:${s.port}`;
  db = await startSQLite();
  await load(db);
});
afterAll(async () => {
  await db.close();
  await s.close();
});

const perRow = () => {
  const pq = new Regolith().addModule('f.rego', POLICY).setData(DATA).prepare('data.filters.include');
  return ROWS.filter((row) => pq.evaluate({ input: { ...KNOWN, fruits: row } })[0]?.expressions[0]?.value === true).map((r) => r.id);
};

describe.each([
  ['@open-policy-agent/opa', (u: string) => new OPAClient(u)],
  ['@styra/opa', (u: string) => new StyraClient(u) as unknown as OPAClient],
])('%s', (_name, client) => {
  it('getFilters for SQLite selects the rows the per-row decision allows, with the masks', async () => {
    const { query, masks } = (await client(url).getFilters('filters/include', KNOWN, { target: 'sqlite' })) as { query: string; masks?: unknown };
    expect(query).toMatch(/^WHERE /);
    expect(masks).toEqual({ fruits: { owner: { replace: { value: '***' } } } });
    expect(await db.ids(`SELECT id FROM fruits ${query} ORDER BY id`)).toEqual(perRow());
  });

  it('getFilters with a Prisma primary table gives Prisma conditions', async () => {
    const r = (await client(url).getFilters('filters/include', KNOWN, 'fruits')) as { query: Record<string, unknown> };
    expect(r.query).toHaveProperty('OR');
    expect(JSON.stringify(r.query)).toContain('"owner":{"equals":"bob"}');
  });

  it('getMultipleFilters answers each target asked for', async () => {
    const r = (await client(url).getMultipleFilters('filters/include', KNOWN, { targets: ['postgresql', 'mysql', 'ucastMinimal'] })) as Record<string, { query: unknown }>;
    expect(Object.keys(r).sort()).toEqual(['mysql', 'postgresql', 'ucast']);
    expect(r['postgresql']!.query).toMatch(/fruits\.owner = 'bob'/);
  });
});
