// One test per shape on which Regolith's partial evaluation once disagreed with OPA's own
// partial-evaluation cases (measured by meaning, issue 24): each policy is written here in
// this project's words. For every world listed (values of the unknowns, missing ones and wrong
// types included), the residual queries with their support modules, read back in as Rego, must
// answer what the full query answers. Shapes still failing are skipped; PARTIAL_OPA_SHAPES_ALL=1
// runs them too.

import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';

interface Case {
  module: string;
  query: string;
  /** Query variables whose values must agree (none: whether the query holds). */
  vars?: string[];
  unknowns?: string[];
  known?: { input?: unknown; data?: unknown };
  worlds: { input?: unknown; data?: unknown }[];
}

/** JSON with object keys sorted, so equal values print alike. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x));

function answers(modules: string[], queries: string[], vars: string[], w: { input?: unknown; data?: unknown }): string[] {
  if (!queries.length) return [];
  const r = new Regolith().setData(w.data ?? {});
  modules.forEach((m, i) => r.addModule(`m${i}.rego`, m));
  r.addModule('q.rego', `package q\n\n${queries.map((q) => `ok contains [${vars.join(', ')}] if {\n${q.trim() || 'true'}\n}`).join('\n\n')}\n`);
  const out = r.prepare('x = data.q.ok').evaluate({ input: w.input });
  return ((out[0]?.bindings['x'] as unknown[] | undefined) ?? []).map(canonical).sort();
}

function check(c: Case): void {
  const module = `package shop\n\n${c.module}\n`;
  const p = new Regolith()
    .setData(c.known?.data ?? {})
    .addModule('shop.rego', module)
    .prepare(c.query)
    .partial({ input: c.known?.input, unknowns: c.unknowns ?? ['input'] });
  const vars = c.vars ?? [];
  for (const w of c.worlds) {
    const want = answers([module], [c.query], vars, w);
    const got = answers([module, ...p.supportText], p.queriesText, vars, w);
    expect(got, `world ${JSON.stringify(w)}\n--- residual\n${p.queriesText.map((q) => q || '(always)').join('\n--\n') || '(never)'}\n--- support\n${p.supportText.join('\n')}`).toEqual(want);
  }
}

const still = process.env.PARTIAL_OPA_SHAPES_ALL ? it : it.skip;
// every shape passes now; `still` is kept for the next one found failing
void still;

const rows = (...xs: unknown[]) => xs.map((row) => ({ input: row === undefined ? {} : { row } }));

describe('partial evaluation: shapes from OPA\'s partial-evaluation cases', () => {
  it('not over a field of a multi-value rule\'s member built from an unknown', () => {
    check({
      module: 'owners[k] contains who if {\n\twho := {"name": input.row.owner, "kind": "user"}\n\tk := "team"\n}\nok if not owners.team[_].name == "bob"\nnamed if owners.team[_].name\nkinds contains c if c := owners[_][_].kind',
      query: 'data.shop.ok',
      unknowns: ['input.row'],
      worlds: rows({ owner: 'bob' }, { owner: 'amy' }, {}, undefined, { owner: 1 }),
    });
    for (const query of ['data.shop.named', 'x := data.shop.kinds'])
      check({
        module: 'owners[k] contains who if {\n\twho := {"name": input.row.owner, "kind": "user"}\n\tk := "team"\n}\nnamed if owners.team[_].name\nkinds contains c if c := owners[_][_].kind',
        query,
        vars: query.startsWith('x') ? ['x'] : [],
        unknowns: ['input.row'],
        worlds: rows({ owner: 'bob' }, { owner: false }, {}, undefined),
      });
  });

  it('a multi-value rule with a general ref head, queried below its elements', () => {
    check({
      module: 'bins[n] contains item if {\n\titem := {"sku": input.row.sku}\n\tn := 7\n}\nbins[n] contains item if {\n\titem := {"alt": input.row.sku}\n\tn := input.row.bin\n}',
      query: 'data.shop.bins[n][item].sku == "k1"',
      vars: ['n', 'item'],
      unknowns: ['input.row'],
      worlds: rows({ sku: 'k1' }, { sku: 'k2' }, { sku: 'k1', bin: 7 }, { bin: 3 }, undefined, { sku: 1 }),
    });
  });

  it('multi-value rules with general ref heads read whole: the support reads back as sets', () => {
    check({
      module: 'bins[n] contains item if {\n\titem := {"sku": input.row.sku}\n\tn := 7\n}\nbins[n].extra contains s if {\n\ts := input.row.sku\n\tn := input.row.bin\n}',
      query: 'x := data.shop.bins',
      vars: ['x'],
      unknowns: ['input.row'],
      worlds: rows({ sku: 'k1' }, { sku: 'k1', bin: 3 }, { bin: 3 }, undefined),
    });
  });

  it('a partial object rule with an unknown key read whole: the support reads back', () => {
    check({
      module: 'price_of[k] := v if {\n\tk := input.row.sku\n\tv := input.row.price\n}\nprice_of[k] := v if {\n\tk := input.row.alt\n\tv := 0\n}',
      query: 'x := data.shop.price_of',
      vars: ['x'],
      unknowns: ['input.row'],
      worlds: rows({ sku: 'k1', price: 3 }, { sku: 'k1' }, { alt: 'k2' }, { sku: 'k1', price: 3, alt: 'k2' }, undefined),
    });
  });

  it('constant rules beside rules with an unknown key under one ref-head tree', () => {
    check({
      module: 'cat[k].tax := 5 if {\n\tk := input.row.sku\n}\ncat.books.tax := 0\ncat.books.note := input.row.note',
      query: 'x := data.shop.cat',
      vars: ['x'],
      unknowns: ['input.row'],
      worlds: rows({ sku: 'k1' }, { note: 'n' }, { sku: 'toys', note: 'n' }, undefined),
    });
  });

  it('a partial set with no element stays an empty set', () => {
    check({
      module: 'flagged contains 1 if {\n\tinput.row.sku == "k1"\n\tfalse\n}',
      query: 'x := data.shop.flagged',
      vars: ['x'],
      unknowns: ['input.row'],
      worlds: rows({ sku: 'k1' }, undefined),
    });
  });

  it('a function with else: the argument is renamed in every branch of the support rule', () => {
    check({
      module: 'band(p) if {\n\tp > 10\n} else := false if {\n\tp < 0\n}\nallow if band(input.row.price)\nrefused if band(input.row.price) == false',
      query: 'data.shop.allow',
      unknowns: ['input.row'],
      worlds: rows({ price: 11 }, { price: -1 }, { price: 5 }, { price: 101 }, undefined, { price: 'x' }),
    });
  });

  it('an unknown two segments below data', () => {
    check({
      module: 'same if data.stock.items.qty == data.stock.items.qty\nlow if input.min >= data.stock.items[_].qty',
      query: 'data.shop.same',
      unknowns: ['data.stock.items'],
      known: { input: { min: 2 } },
      worlds: [{ data: {} }, { data: { stock: {} } }, { data: { stock: { items: { qty: 1 } } } }, { data: { stock: { items: {} } } }],
    });
    check({
      module: 'low if input.min >= data.stock.items[_].qty',
      query: 'data.shop.low',
      unknowns: ['data.stock.items'],
      known: { input: { min: 2 } },
      worlds: [{ input: { min: 2 }, data: { stock: { items: [{ qty: 1 }] } } }, { input: { min: 2 }, data: { stock: { items: [{ qty: 3 }] } } }, { input: { min: 2 }, data: { stock: {} } }],
    });
  });

  it('not over a function of a composite built from an unknown keeps the unknown\'s definedness', () => {
    check({
      module: 'heavy(pair) if sum(pair) > 3\nok if {\n\tw := input.weight\n\tpair := [w, 1]\n\tnot heavy(pair)\n}',
      query: 'data.shop.ok',
      worlds: [{ input: { weight: 1 } }, { input: { weight: 5 } }, { input: {} }, {}, { input: { weight: 'x' } }],
    });
  });

  it('a comprehension over a copy of the unknown input keeps the input\'s definedness', () => {
    // the comprehension is always defined, but the copy before it is not (Regolith keeps it)
    check({
      module: 'firsts := c if {\n\tdoc := input\n\tc := [v | v := doc.items[0]]\n}\nsizes := s if {\n\tr := input.row\n\ts := {n | n := count(r.tags)}\n}',
      query: 'x := data.shop.firsts; y := data.shop.sizes',
      vars: ['x', 'y'],
      worlds: [{ input: { items: [1], row: { tags: [] } } }, { input: { items: [] } }, { input: { row: {} } }, { input: 3 }, {}],
    });
  });

  it('not over a function of the whole unknown input keeps its definedness', () => {
    check({
      module: 'big(x) if count(x) > 3\nok if {\n\tdoc := input\n\tnot big(doc)\n}',
      query: 'data.shop.ok',
      worlds: [{ input: [1] }, { input: [1, 2, 3, 4] }, {}, { input: 7 }],
    });
  });

  it('default functions apply when the body fails for a defined argument', () => {
    for (const query of ['data.shop.fits', 'data.shop.fits_eq', 'x := data.shop.size_ok(input.box)']) {
      check({
        module: 'default size_ok(_) := true\nsize_ok(b) if b.size < 100\nfits if size_ok(input.box)\nfits_eq if size_ok(input.box) == true',
        query,
        vars: query.startsWith('x') ? ['x'] : [],
        worlds: [{ input: { box: { size: 5 } } }, { input: { box: { size: 500 } } }, { input: { box: {} } }, { input: { box: 3 } }, { input: {} }, {}],
      });
    }
  });

  it('a default rule whose other definition binds its value', () => {
    check({
      module: 'default discount := 0\ndiscount := d if input.row.discount = d',
      query: 'x := data.shop.discount',
      vars: ['x'],
      unknowns: ['input.row'],
      worlds: rows({ discount: 5 }, {}, undefined, { discount: 0 }),
    });
  });

  it('every inside a function called with the unknown input', () => {
    check({
      module: 'all_positive(doc) if {\n\tevery v in [1, 2] {\n\t\tdoc.min < v\n\t}\n}\nok if all_positive(input)',
      query: 'data.shop.ok',
      worlds: [{ input: { min: 0 } }, { input: { min: 1 } }, { input: {} }, {}],
    });
  });

  it('a rule tree read whole while it depends on the unknowns', () => {
    check({
      module: 'lines[k].total := t if {\n\tk := input.row.sku\n\tt := input.row.price\n}\nlines.fixed.total := 1',
      query: 'x := data.shop.lines[k]',
      vars: ['x', 'k'],
      unknowns: ['input.row'],
      worlds: rows({ sku: 'k1', price: 2 }, { sku: 'fixed', price: 1 }, { sku: 'k1' }, {}, undefined),
    });
  });

  it('with replacing data over unknowns', () => {
    check({
      module: 'cheap if data.limits.max > input.row.price\nok if cheap with data.limits.max as 10\npricey if not cheap with data.limits.max as 10',
      query: 'data.shop.ok',
      unknowns: ['input.row'],
      known: { data: { limits: { max: 1 } } },
      worlds: rows({ price: 5 }, { price: 50 }, { price: 'x' }, undefined).map((w) => ({ ...w, data: { limits: { max: 1 } } })),
    });
    check({
      module: 'cheap if data.limits.max > input.row.price\npricey if not cheap with data.limits.max as 10',
      query: 'data.shop.pricey',
      unknowns: ['input.row'],
      worlds: rows({ price: 5 }, { price: 50 }, { price: 'x' }, undefined),
    });
  });

  it('with data replaced by an unknown value: kept with its replacement, its outputs read after it', () => {
    const module = [
      'markup := m if m := data.rates.markup',
      'rate_of(k) := data.rates[k]',
      'listed contains k if some k, _ in data.rates',
      'same if data.rates == [1]',
      'price := p + 1 if p := markup with data.rates as input.row.rates',
      'fee := f * 2 if rate_of("ship", f) with data.rates as input.row.rates',
      'has contains k if listed[k] with data.rates as input.row.rates',
      'size := n if n := count(data.rates) with data.rates as input.row.rates',
      'one if {\n\tz := input.row.n\n\tx := [z]\n\tsame with data.rates as x\n}',
    ].join('\n');
    const worlds = rows({ rates: { markup: 3, ship: 4 }, n: 1 }, { rates: { markup: 'a' }, n: 2 }, { rates: [] }, { rates: 5 }, {}, undefined).map((w) => ({ ...w, data: { rates: { markup: 100 } } }));
    for (const q of ['x := data.shop.price', 'x := data.shop.fee', 'x := data.shop.has', 'x := data.shop.size', 'x := data.shop.one'])
      check({ module, query: q, vars: ['x'], unknowns: ['input.row'], known: { data: { rates: { markup: 100 } } }, worlds });
  });

  it('with replacing a function or a built-in over unknowns', () => {
    check({
      module: 'lenient(_) := true\nstrict(x) if x > 100\nok if strict(input.row.price) with strict as lenient\nsized if count(input.row.tags) == 2 with count as lenient',
      query: 'data.shop.ok',
      unknowns: ['input.row'],
      worlds: rows({ price: 5 }, { price: 500 }, {}, undefined),
    });
  });

  it('mocks whose replacement, arguments or bodies touch unknowns, also under not', () => {
    const module = [
      'strict(x) if x > 100',
      'loose(_) := true',
      'vip_only(_) := true if input.row.vip',
      'two(_) := 2 if input.row.vip',
      'two(_) := 2 if input.row.gold',
      'args_unknown if strict(input.row.price) with strict as loose',
      'body_unknown if strict(5) with strict as vip_only',
      'builtin_body if count([1]) == 2 with count as two',
      'builtin_args if count(input.row.tags) == 2 with count as two',
      'not_mocked if not strict(input.row.price) with strict as vip_only',
      'not_builtin if not count(input.row.tags) == 2 with count as two',
      'q if strict(input.row.price)',
      'rule_mocked if q with strict as vip_only',
      'not_rule if not q with input.user as "amy" with strict as loose',
    ].join('\n');
    const worlds = rows({ price: 5 }, { price: 500 }, { vip: true, price: 5 }, { gold: true, tags: [1] }, { vip: false, tags: [1, 2] }, {}, undefined);
    for (const q of ['args_unknown', 'body_unknown', 'builtin_body', 'builtin_args', 'not_mocked', 'not_builtin', 'rule_mocked', 'not_rule'])
      check({ module, query: `data.shop.${q}`, unknowns: ['input.row'], worlds });
  });

  it('with on the input over a support rule, and over a value read before the replacement', () => {
    check({
      // a function with else is a support rule: it cannot be made under the replacement
      module: 'band(p) := 1 if {\n\tp > 10\n} else := 2\nlow if not band(input.row.price) == 1 with input.user as "amy"',
      query: 'data.shop.low',
      unknowns: ['input.row'],
      worlds: rows({ price: 5 }, { price: 50 }, {}, undefined),
    });
    check({
      // r is the row before the replacement: read outside the `with`
      module: 'over(r) if r.price > input.row.price\nok if {\n\tr := input.row\n\tover(r) with input.row.price as 5\n}\nsame if {\n\tr := input.row\n\tover(r) with input.row as {"price": 5}\n}',
      query: 'data.shop.ok; data.shop.same',
      unknowns: ['input.row'],
      worlds: rows({ price: 5 }, { price: 50 }, {}, undefined),
    });
    check({
      module: 'big if input.row.price > 10\nnested if {\n\tx := input.row.cap\n\tbig with data.limits as x with input.row.price as 50\n}\ndeep if not big with input.row.price as 5 with data.limits as 1',
      query: 'data.shop.nested; data.shop.deep',
      unknowns: ['input.row'],
      worlds: rows({ price: 5, cap: 1 }, { price: 50 }, {}, undefined),
    });
  });

  it('a non-deterministic built-in with an output variable', () => {
    check({
      module: 'stamp := t if time.now_ns(t)',
      query: 'time.now_ns(t); t > 0',
      vars: [],
      worlds: [{ input: {} }],
    });
    for (const query of ['time.now_ns(t)', 'data.shop.stamp > 0']) {
      check({ module: 'stamp := t if time.now_ns(t)', query, worlds: [{ input: {} }] });
      // kept for the caller to evaluate, as OPA keeps it, with the query's variable bound to its output
      const p = new Regolith().addModule('shop.rego', 'package shop\n\nstamp := t if time.now_ns(t)\n').prepare(query).partial({ unknowns: ['input'] });
      expect(p.queriesText.join('\n')).toMatch(/time\.now_ns\(__p\d+__\)/);
      if (query.startsWith('time')) expect(p.queriesText.join('\n')).toMatch(/t = __p\d+__/);
    }
  });

  it('a ref-head tree indexed by an unknown key', () => {
    check({
      module: 'menu["a/b"][x] if {\n\tx := "c"\n\tinput.row.sku == input.row.alt\n}',
      query: 'data.shop.menu[input.row.key]',
      unknowns: ['input.row'],
      worlds: rows({ key: 'a/b', sku: 1, alt: 1 }, { key: 'a/b', sku: 1, alt: 2 }, { key: 'zz', sku: 1, alt: 1 }, {}),
    });
  });

  it('two every over one variable name in a body read back', () => {
    check({
      module: 'clean if {\n\tevery t in input.row.tags { t != "bad" }\n\tevery t in input.row.tags { t != "worse" }\n}',
      query: 'data.shop.clean',
      unknowns: ['input.row'],
      worlds: rows({ tags: ['ok'] }, { tags: ['bad'] }, { tags: ['worse'] }, { tags: 'pub' }, undefined),
    });
  });

  it('a sibling constant in a ref-head tree whose other key is unknown', () => {
    check({
      module: 'cfg.books.tax := 0\ncfg[k].extra := 2 if {\n\tk := input.row.sku\n}\nok if cfg.books.tax == 0',
      query: 'data.shop.ok',
      unknowns: ['input.row'],
      worlds: rows({ sku: 'k1' }, { sku: 'books' }, undefined),
    });
  });
});
