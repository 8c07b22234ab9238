// Runnable example of the library API:   npx tsx examples/library.ts
import { Regolith, RegoCompileError, RegoEvalError } from '../src/index.js';

const rego = new Regolith(); // v1 syntax; new Regolith({ regoVersion: 'v0' }) for v0 modules
rego.addModule(
  'authz.rego',
  `package authz

default allow := false

allow if {
  some role in data.bindings[input.user]
  some grant in data.roles[role]
  grant.action == input.action
}
`,
);
rego.setData({
  bindings: { alice: ['admin'], bob: ['viewer'] },
  roles: { admin: [{ action: 'read' }, { action: 'write' }], viewer: [{ action: 'read' }] },
});

// One-off decision: a plain JS input in, a plain JS value out.
console.log('alice write:', rego.decide('authz/allow', { user: 'alice', action: 'write' }));

// Prepare once, evaluate many times (the input is used as is, never copied).
const allow = rego.prepare('data.authz.allow');
for (const input of [{ user: 'bob', action: 'read' }, { user: 'bob', action: 'write' }])
  console.log(JSON.stringify(input), '->', allow.evaluate({ input })[0]?.expressions[0]?.value);

// Queries with variables return OPA-shaped results: [{ expressions, bindings }].
console.log(JSON.stringify(rego.prepare('some user; "admin" in data.bindings[user]').evaluate()));

// Typed errors.
try {
  new Regolith().addModule('bad.rego', 'package bad\n\np if { x > 1 }\n').compile();
} catch (e) {
  if (e instanceof RegoCompileError) console.log('compile error:', e.errors[0]);
}
try {
  new Regolith().addModule('c.rego', 'package c\n\np := x if x := [1, 2][_]\n').decide('c/p');
} catch (e) {
  if (e instanceof RegoEvalError) console.log('eval error:', e.code, e.message);
}
