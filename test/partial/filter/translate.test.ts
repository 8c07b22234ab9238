// The translations on their own: each dialect's quoting and escaping, the SQL Server text
// (checked by parsing it), UCAST shapes, multitarget, table mappings, always/never, and the
// pe_fragment_errors for what no target can say.

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Regolith, parseQuery } from '../../../src/index.js';
import { FilterError, parseTarget, translateFilter, type Target } from '../../../src/partial/filter/index.js';

const P = 'package filters\nimport rego.v1\n';

function translate(module: string, target: Target | string, input: unknown = {}, options = {}) {
  const t = typeof target === 'string' ? parseTarget(target)! : target;
  const p = new Regolith().addModule('f.rego', P + module).prepare('data.filters.include').partial({ input, unknowns: ['input.fruits'] });
  return translateFilter({ queries: p.queries, supportCount: p.support.length }, t, options) as Record<string, unknown>;
}
const sql = (module: string, dialect: string, input: unknown = {}, options = {}) => translate(module, `application/vnd.opa.sql.${dialect}+json`, input, options)['query'];

describe('SQL text', () => {
  it('writes each dialect\'s literals and escapes', () => {
    const m = `include if input.fruits.name == "it's \\\\ fine"\ninclude if input.fruits.ok == true`;
    expect(sql(m, 'postgresql')).toBe("WHERE fruits.name = 'it''s \\ fine' OR fruits.ok = TRUE");
    expect(sql(m, 'mysql')).toBe("WHERE BINARY fruits.name = 'it''s \\\\ fine' OR fruits.ok = TRUE");
    expect(sql(m, 'sqlite')).toBe("WHERE fruits.name = 'it''s \\ fine' OR fruits.ok = 1");
    expect(sql(m, 'sqlserver')).toBe("WHERE fruits.name = N'it''s \\ fine' OR fruits.ok = 1");
  });

  it('escapes LIKE wildcards (ESCAPE, or brackets on SQL Server)', () => {
    const m = 'include if startswith(input.fruits.name, "50%_off!")';
    expect(sql(m, 'postgresql')).toBe("WHERE fruits.name LIKE '50!%!_off!!%' ESCAPE '!'");
    expect(sql(m, 'sqlserver')).toBe("WHERE fruits.name LIKE N'50[%][_]off!%'");
    expect(sql(m, 'sqlite')).toBe("WHERE substr(fruits.name, 1, 8) = '50%_off!'");
  });

  it('10 <= price means price >= 10', () => {
    expect(sql('include if 10 <= input.fruits.price', 'postgresql')).toBe('WHERE fruits.price >= 10');
    expect(sql('include if 10 > input.fruits.price', 'postgresql')).toBe('WHERE (fruits.price < 10 OR fruits.price IS NULL)');
  });

  it('renames tables and columns with targetSQLTableMappings and quotes names that need it', () => {
    const options = { targetSQLTableMappings: { postgresql: { fruits: { $self: 'Fruit Table', price: 'cost' } } } };
    expect(sql('include if input.fruits.price > 1', 'postgresql', {}, options)).toBe('WHERE "Fruit Table".cost > 1');
    expect(sql('include if input.fruits.price > 1', 'mysql', {}, options)).toBe('WHERE fruits.price > 1');
  });

  it('always true is no WHERE clause; never true selects nothing', () => {
    expect(sql('include if input.k == 1', 'postgresql', { k: 1 })).toBe('');
    expect(sql('include if input.k == 1', 'postgresql', { k: 2 })).toBe('WHERE 1 = 0');
  });

  it('SQL Server text parses as T-SQL', () => {
    const { Parser } = createRequire(import.meta.url)('node-sql-parser') as { Parser: new () => { astify(s: string, o: object): unknown } };
    const parser = new Parser();
    const m = `include if { input.fruits.price < 5; startswith(input.fruits.name, "a_"); not input.fruits.tenant in {"t1", "t2"} }
include if { input.fruits.owner == input.fruits.name; input.fruits.ok }
include if { input.fruits.name != null; not contains(input.fruits.name, "[x]") }`;
    const where = sql(m, 'sqlserver') as string;
    expect(() => parser.astify(`SELECT id FROM fruits ${where}`, { database: 'transactsql' }), where).not.toThrow();
  });
});

describe('UCAST', () => {
  it('field and compound nodes; Rego null kept by or-ing field = null', () => {
    expect(translate('include if { input.fruits.price > 1; input.fruits.name == "x" }', 'application/vnd.opa.ucast.all+json')).toEqual({
      query: { type: 'compound', operator: 'and', value: [{ type: 'field', operator: 'gt', field: 'fruits.price', value: 1 }, { type: 'field', operator: 'eq', field: 'fruits.name', value: 'x' }] },
    });
    expect(translate('include if input.fruits.price != 3', 'application/vnd.styra.ucast.prisma+json')).toEqual({
      query: { type: 'compound', operator: 'or', value: [{ type: 'field', operator: 'ne', field: 'fruits.price', value: 3 }, { type: 'field', operator: 'eq', field: 'fruits.price', value: null }] },
    });
  });

  it('always true is {}; never true has no query', () => {
    expect(translate('include if input.k == 1', 'application/vnd.opa.ucast.minimal+json', { k: 1 })).toEqual({ query: {} });
    expect(translate('include if input.k == 1', 'application/vnd.opa.ucast.minimal+json', { k: 2 })).toEqual({});
  });

  it('column-to-column and (outside "all") negated string tests are refused', () => {
    expect(() => translate('include if input.fruits.a == input.fruits.b', 'application/vnd.opa.ucast.all+json')).toThrow(FilterError);
    expect(() => translate('include if not startswith(input.fruits.a, "x")', 'application/vnd.opa.ucast.prisma+json')).toThrow(/no not/);
    expect(translate('include if not startswith(input.fruits.a, "x")', 'application/vnd.opa.ucast.all+json')['query']).toMatchObject({ operator: 'or' });
  });
});

describe('multitarget', () => {
  it('answers every dialect asked for (all by default), with masks in each', () => {
    const r = translate('include if input.fruits.price > 1', 'application/vnd.opa.multitarget+json', {}, { targetDialects: ['ucast+prisma', 'sql+sqlite'], masks: { 'fruits.name': { replace: { value: '***' } } } });
    expect(Object.keys(r).sort()).toEqual(['sqlite', 'ucast']);
    expect(r['sqlite']).toEqual({ query: 'WHERE fruits.price > 1', masks: { 'fruits.name': { replace: { value: '***' } } } });
    const all = translate('include if input.fruits.price > 1', 'application/vnd.opa.multitarget+json');
    expect(Object.keys(all).sort()).toEqual(['mysql', 'postgresql', 'sqlite', 'sqlserver', 'ucast']);
  });
});

describe('what no target can say is a pe_fragment_error, never a WHERE clause', () => {
  const refused: [string, string, RegExp][] = [
    ['every', 'include if every x in input.fruits.tags { x > 1 }', /every/],
    ['a nested call', 'include if count(input.fruits.name) > 1', /count/],
    ['a reference deeper than table.column', 'include if input.fruits.meta.color == "red"', /deeper/],
    ['a support rule', 'size(x) := "big" if x > 3\nelse := "small"\ninclude if size(input.fruits.price) == "big"', /support/],
    ['a comparison of two columns by <', 'include if input.fruits.a < input.fruits.b', /two columns/],
    ['a built-in the targets lack', 'include if regex.match("^a", input.fruits.name)', /regex\.match/],
    ['iteration over a column', 'include if input.fruits.tags[_] == "x"', /not supported/],
  ];
  for (const [what, module, message] of refused) {
    it(what, () => {
      let err: unknown;
      try {
        translate(module, 'application/vnd.opa.sql.postgresql+json');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FilterError);
      const errors = (err as FilterError).errors;
      expect(errors[0]!.code).toBe('pe_fragment_error');
      expect(errors.map((e) => e.message).join('\n')).toMatch(message);
    });
  }

  it('every and with left in a residual are refused too', () => {
    for (const [q, m] of [
      ['every x in input.fruits.tags { x > 1 }', /every/],
      ['input.fruits.price > 1 with input.x as 1', /with/],
    ] as const) {
      expect(() => translateFilter({ queries: [parseQuery(q)], supportCount: 0 }, { kind: 'sql', dialect: 'postgresql' })).toThrow(m);
    }
  });

  it('errors carry the location of the expression', () => {
    expect.assertions(1);
    try {
      translate('include if input.fruits.meta.color == "red"', 'application/vnd.opa.sql.postgresql+json');
    } catch (e) {
      expect((e as FilterError).errors[0]!.location).toMatchObject({ file: 'f.rego', row: 3 });
    }
  });
});
