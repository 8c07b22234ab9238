// A corpus of filter policies for the partial-evaluation property: each is a module of
// package `t`, a query, and the unknowns. Inputs are { user, row }: `user` is known, `row`
// is what partial evaluation does not know (a table row, in data-filtering terms).

export interface Case {
  name: string;
  module: string;
  query: string;
  unknowns?: string[];
  disableInlining?: string[];
}

const P = 'package t\nimport rego.v1\n';

export const DATA = {
  roles: { bob: ['admin'], amy: ['viewer', 'editor'], cy: [] as string[] },
  tenants: { bob: ['t1', 't2'], amy: ['t2'], cy: ['t3'] },
  limits: { bob: 100, amy: 20, cy: 0 },
  blocked: ['b2', 'zz'],
};

export const CORPUS: Case[] = [
  { name: 'rbac: role from data', module: `${P}allow if "admin" in data.roles[input.user]\nallow if { "viewer" in data.roles[input.user]; input.row.public }`, query: 'data.t.allow == true' },
  { name: 'ownership', module: `${P}allow if input.row.owner == input.user`, query: 'data.t.allow' },
  { name: 'tenancy', module: `${P}allow if input.row.tenant in data.tenants[input.user]`, query: 'data.t.allow == true' },
  { name: 'tenancy + ownership + roles', module: `${P}default allow := false\nallow if { input.row.tenant in data.tenants[input.user]; input.row.owner == input.user }\nallow if { input.row.tenant in data.tenants[input.user]; "editor" in data.roles[input.user] }\nallow if "admin" in data.roles[input.user]`, query: 'data.t.allow == true' },
  { name: 'range', module: `${P}allow if { input.row.price >= 10; input.row.price < 50 }`, query: 'data.t.allow' },
  { name: 'range, reversed operands', module: `${P}allow if { 10 <= input.row.price; 50 > input.row.price }`, query: 'data.t.allow' },
  { name: 'limit from data', module: `${P}allow if input.row.price <= data.limits[input.user]`, query: 'data.t.allow' },
  { name: 'not over one expression', module: `${P}allow if { input.row.owner == input.user; not input.row.flag }`, query: 'data.t.allow' },
  { name: 'not over a rule of two expressions', module: `${P}bad if { input.row.flag; input.row.x > 3 }\nallow if { input.row.owner; not bad }`, query: 'data.t.allow' },
  { name: 'not over a rule with two bodies', module: `${P}bad if input.row.flag == true\nbad if input.row.x > 4\nallow if { input.row.tenant; not bad }`, query: 'data.t.allow' },
  { name: 'not with a local variable', module: `${P}allow if { input.row.owner; not has_blocked }\nhas_blocked if { some t in input.row.tags; t in data.blocked }`, query: 'data.t.allow' },
  { name: 'not beyond the expansion bound', module: `${P}bad if { input.row.x == 1; input.row.price == 1; input.row.flag == true }\nbad if { input.row.x == 2; input.row.price == 2; input.row.owner == "bob" }\nbad if { input.row.x == 3; input.row.price == 3; input.row.tenant == "t1" }\nallow if { input.row.level; not bad }`, query: 'data.t.allow' },
  { name: 'in a literal set', module: `${P}allow if input.row.level in {"low", "mid"}`, query: 'data.t.allow' },
  { name: 'membership in the row', module: `${P}allow if "a1" in input.row.tags`, query: 'data.t.allow' },
  { name: 'some over the row', module: `${P}allow if { some t in input.row.tags; startswith(t, "a") }`, query: 'data.t.allow' },
  { name: 'string prefix, suffix, contains', module: `${P}allow if startswith(input.row.owner, "b")\nallow if endswith(input.row.level, "id")\nallow if contains(input.row.tenant, "2")`, query: 'data.t.allow' },
  { name: 'function, inlined', module: `${P}ok(p) if p >= 10\nok(p) if p < 2\nallow if ok(input.row.price)`, query: 'data.t.allow' },
  { name: 'function returning a value', module: `${P}double(p) := p * 2\nallow if double(input.row.price) > 50`, query: 'data.t.allow' },
  { name: 'function of known arguments', module: `${P}limit(u) := data.limits[u]\nallow if input.row.price < limit(input.user)`, query: 'data.t.allow' },
  { name: 'rule with else', module: `${P}level := "high" if input.row.price > 100 else := "mid" if input.row.price > 10 else := "low"`, query: 'data.t.level == "mid"' },
  { name: 'else, default value reached', module: `${P}level := "high" if input.row.price > 100 else := "low"`, query: 'data.t.level == "low"' },
  { name: 'default false', module: `${P}default allow := false\nallow if input.row.public == true`, query: 'data.t.allow == true' },
  { name: 'default, asked for the default', module: `${P}default allow := false\nallow if input.row.public == true`, query: 'data.t.allow == false' },
  { name: 'default, negated', module: `${P}default deny := false\ndeny if input.row.flag == true\nallow if { input.row.owner; not deny }`, query: 'data.t.allow' },
  { name: 'every over the row', module: `${P}allow if { input.row.items; every i in input.row.items { i > 0 } }`, query: 'data.t.allow' },
  { name: 'every over known data', module: `${P}allow if every t in data.tenants[input.user] { t != input.row.tenant }`, query: 'data.t.allow' },
  { name: 'comprehension over the row', module: `${P}allow if count([i | some i in input.row.items; i > 1]) >= 2`, query: 'data.t.allow' },
  { name: 'comprehension over known data', module: `${P}mine := {t | some t in data.tenants[input.user]}\nallow if input.row.tenant in mine`, query: 'data.t.allow' },
  { name: 'with on a known rule', module: `${P}isadmin if "admin" in data.roles[input.user]\nallow if { isadmin with input.user as "bob"; input.row.x > 2 }`, query: 'data.t.allow' },
  { name: 'with over the unknowns', module: `${P}big if input.row.price > 10\nallow if { big with input.row.price as 50; input.row.owner }`, query: 'data.t.allow' },
  { name: 'partial set rule', module: `${P}visible contains t if some t in data.tenants[input.user]\nallow if input.row.tenant in visible`, query: 'data.t.allow' },
  { name: 'partial set rule over the row', module: `${P}good contains t if { some t in input.row.tags; not t in data.blocked }\nallow if count(good) > 0`, query: 'data.t.allow' },
  { name: 'partial object rule', module: `${P}caps[k] := v if { some k, v in {"a1": 1, "b2": 2} }\nallow if caps[input.row.level] > 1`, query: 'data.t.allow' },
  { name: 'copy propagation and definedness', module: `${P}allow if { p := input.row.price; o := input.row.owner; p > 5 }`, query: 'data.t.allow' },
  { name: 'arithmetic on unknowns', module: `${P}allow if input.row.price + input.row.x > 20`, query: 'data.t.allow' },
  { name: 'whole input unknown', module: `${P}allow if { input.user == "bob"; input.row.owner == input.user }`, query: 'data.t.allow', unknowns: ['input'] },
  { name: 'disableInlining', module: `${P}ok if input.row.public\nallow if { ok; input.row.x > 1 }`, query: 'data.t.allow', disableInlining: ['data.t.ok'] },
  { name: 'query with a variable', module: `${P}level := "high" if input.row.price > 100 else := "low"`, query: 'x := data.t.level; x == "high"' },
  { name: 'equality of two unknowns', module: `${P}allow if input.row.owner == input.row.tenant`, query: 'data.t.allow' },
  { name: 'bare boolean field', module: `${P}allow if input.row.flag`, query: 'data.t.allow' },
];
