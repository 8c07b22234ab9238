import { describe, expect, it } from 'vitest';
import { moduleToJSON, parseModule, parseQuery, RegoParseError, type Rule } from '../../src/lang/index.js';
import { show, showExpr } from './helpers.js';

const v1 = (body: string) => parseModule(`package test\n${body}`, { filename: 'p.rego' });
const v0 = (body: string) => parseModule(`package test\n${body}`, { filename: 'p.rego', regoVersion: 'v0' });

function head(r: Rule) {
  const h = r.head;
  return {
    name: h.name,
    ref: h.ref.map(show).join('.'),
    args: h.args?.map(show),
    key: h.key && show(h.key),
    value: h.value && show(h.value),
    assign: h.assign ?? false,
  };
}
function errorsOf(f: () => unknown): { message: string; row?: number; col?: number; file?: string }[] {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(RegoParseError);
    return (e as RegoParseError).errors.map((d) => ({ message: d.message, row: d.location?.row, col: d.location?.col, file: d.location?.file }));
  }
  throw new Error('expected a parse error');
}

describe('package and imports', () => {
  it('package paths start with data', () => {
    expect(parseModule('package a.b').package.path.map(show)).toEqual(['data', '"a"', '"b"']);
    expect(parseModule('package a["b-c"].d').package.path.map(show)).toEqual(['data', '"a"', '"b-c"', '"d"']);
    expect(errorsOf(() => parseModule('package a[x]'))[0]!.message).toBe('unexpected var token: expecting string');
  });
  it('imports with aliases, future and rego.v1', () => {
    const m = parseModule('package p\nimport data.x.y\nimport input.z as w\nimport future.keywords\nimport future.keywords.in\nimport rego.v1');
    expect(m.imports.map((i) => show(i.path) + (i.alias ? ' as ' + i.alias : ''))).toEqual([
      'ref(data, "x", "y")',
      'ref(input, "z") as w',
      'ref(future, "keywords")',
      'ref(future, "keywords", "in")',
      'ref(rego, "v1")',
    ]);
    expect(errorsOf(() => parseModule('package p\nimport foo.bar'))[0]!.message).toMatch(/^unexpected import path, must begin with one of: \{data, future, input, rego\}, got: foo/);
    expect(errorsOf(() => parseModule('package p\nimport future.keywords.nope', { regoVersion: 'v0' }))[0]!.message).toBe(
      'unexpected keyword, must be one of [and contains every if in not or]',
    );
  });
  it('package must come first', () => {
    expect(errorsOf(() => parseModule('p := 1'))[0]).toMatchObject({ message: 'package expected', row: 1 });
    expect(errorsOf(() => parseModule(''))[0]!.message).toBe('empty module');
  });
});

describe('v1 rules', () => {
  it('complete rules, defaults, if bodies', () => {
    const m = v1('default p := 1\np := 2 if { true }\nq = 3 if x\nr if { input.a > 1 }\ns if input.b');
    expect(m.rules.map(head)).toEqual([
      { name: 'p', ref: 'p', args: undefined, key: undefined, value: '1', assign: true },
      { name: 'p', ref: 'p', args: undefined, key: undefined, value: '2', assign: true },
      { name: 'q', ref: 'q', args: undefined, key: undefined, value: '3', assign: false },
      { name: 'r', ref: 'r', args: undefined, key: undefined, value: 'true', assign: false },
      { name: 's', ref: 's', args: undefined, key: undefined, value: 'true', assign: false },
    ]);
    expect(m.rules[0]!.default).toBe(true);
    expect(m.rules[0]!.body.map(showExpr)).toEqual(['true']);
    expect(m.rules[3]!.body.map(showExpr)).toEqual(['expr(ref(gt), ref(input, "a"), 1)']);
  });
  it('partial sets need contains; p[x] if is a single-value ref head', () => {
    const m = v1('p contains x if { some x in [1] }\nq[x] if { x := 1 }\nr[k] := v if { k := 1; v := 2 }\na.b[x].c := y if { x := 1; y := 2 }\nd.e.f if true');
    expect(m.rules.map(head)).toEqual([
      { name: 'p', ref: 'p', args: undefined, key: 'x', value: undefined, assign: false },
      { name: undefined, ref: 'q.x', args: undefined, key: 'x', value: 'true', assign: false },
      { name: 'r', ref: 'r.k', args: undefined, key: 'k', value: 'v', assign: true },
      { name: undefined, ref: 'a."b".x."c"', args: undefined, key: undefined, value: 'y', assign: true },
      { name: undefined, ref: 'd."e"."f"', args: undefined, key: undefined, value: 'true', assign: false },
    ]);
  });
  it('functions, default functions and else chains', () => {
    const m = v1('f(x, y) := z if { z := x + y }\ng(x) if x > 1\nh(x) = y if y := x\ndefault k(_) := false\nlevel(x) := "hi" if { x > 10 } else := "lo" if { x > 1 } else := "none"');
    expect(m.rules.map(head).slice(0, 4)).toEqual([
      { name: 'f', ref: 'f', args: ['x', 'y'], key: undefined, value: 'z', assign: true },
      { name: 'g', ref: 'g', args: ['x'], key: undefined, value: 'true', assign: false },
      { name: 'h', ref: 'h', args: ['x'], key: undefined, value: 'y', assign: false },
      { name: 'k', ref: 'k', args: ['$0'], key: undefined, value: 'false', assign: true },
    ]);
    const lvl = m.rules[4]!;
    expect(show(lvl.else!.head.value!)).toBe('"lo"');
    expect(show(lvl.else!.else!.head.value!)).toBe('"none"');
    expect(lvl.else!.else!.body.map(showExpr)).toEqual(['true']);
  });
  it('bodyless rules from statements', () => {
    const m = v1('p := 1\nq = {"a": 1}\nf(x) := x\nr[x] = 1 if x := "a"\na.b.c := 2');
    expect(m.rules.map(head).map((h) => [h.ref, h.value, h.assign])).toEqual([
      ['p', '1', true],
      ['q', '{"a": 1}', false],
      ['f', 'x', true],
      ['r.x', '1', false],
      ['a."b"."c"', '2', true],
    ]);
  });
  it('v0 syntax is rejected with OPA messages at the rule, with the hint to parse it as v0', () => {
    const hint = ' (hint: a Rego v0 policy? parse it with --v0-compatible)';
    expect(errorsOf(() => v1('p { true }'))).toEqual([{ message: `\`if\` keyword is required before rule body${hint}`, row: 2, col: 1, file: 'p.rego' }]);
    expect(errorsOf(() => v1('\np[x] {\n x := 1 }')).map((e) => e.message)).toEqual([
      `\`if\` keyword is required before rule body${hint}`,
      `\`contains\` keyword is required for partial set rules${hint}`,
    ]);
    expect(errorsOf(() => v1('f(x) = y { y := x }'))[0]!.message).toBe(`\`if\` keyword is required before function body${hint}`);
  });
  it('no --v0-compatible hint where the module asked for v1 (import rego.v1): OPA\'s message alone', () => {
    expect(errorsOf(() => v1('import rego.v1\np { true }'))[0]!.message).toBe('`if` keyword is required before rule body');
    expect(errorsOf(() => v0('import rego.v1\np { true }'))[0]!.message).toBe('`if` keyword is required before rule body');
  });
  it('keywords are reserved in v1', () => {
    expect(() => v1('x := in')).toThrow(RegoParseError);
  });
});

describe('v0 rules', () => {
  it('complete, partial set, partial object, functions, multiple bodies', () => {
    const m = v0('p { true }\ns[x] { x := 1 }\no[k] = v { k := 1; v := 2 }\nf(x) = y { y := x }\nq { a } { b }');
    expect(m.rules.map(head)).toEqual([
      { name: 'p', ref: 'p', args: undefined, key: undefined, value: 'true', assign: false },
      { name: 's', ref: 's', args: undefined, key: 'x', value: undefined, assign: false },
      { name: 'o', ref: 'o.k', args: undefined, key: 'k', value: 'v', assign: false },
      { name: 'f', ref: 'f', args: ['x'], key: undefined, value: 'y', assign: false },
      { name: 'q', ref: 'q', args: undefined, key: undefined, value: 'true', assign: false },
      { name: 'q', ref: 'q', args: undefined, key: undefined, value: 'true', assign: false },
    ]);
    expect(m.rules[5]!.body.map(showExpr)).toEqual(['b']);
    expect(m.regoVersion).toBe('v0');
  });
  it('future keywords are identifiers until imported', () => {
    const m = v0('p { in := 1; every := 2; contains := 3; if := 4 }');
    expect(m.rules[0]!.body.length).toBe(4);
    const m2 = v0('import future.keywords.in\np { 1 in [1] }');
    expect(m2.rules[0]!.body.map(showExpr)).toEqual(['expr(ref(internal, "member_2"), 1, [1])']);
    const m3 = v0('import rego.v1\np contains x if { some x in [1] }');
    expect(m3.rules[0]!.head.key).toBeDefined();
    expect(() => v0('import rego.v1\np { true }')).toThrow(/`if` keyword is required/);
  });
});

describe('body expressions', () => {
  const body = (s: string) => v1(`p if {\n${s}\n}`).rules[0]!.body.map(showExpr);
  it('not, some, every, with, semicolons and newlines', () => {
    expect(body('not x; some a, b\nsome y in ys\nsome k, v in o')).toEqual([
      'not x',
      'some(a, b)',
      'some(call(ref(internal, "member_2"), y, ys))',
      'some(call(ref(internal, "member_3"), k, v, o))',
    ]);
    expect(body('every x in xs { x > 0 }\nevery k, v in o { k != v }')).toEqual([
      'every(-, x, xs, {expr(ref(gt), x, 0)})',
      'every(k, v, o, {expr(ref(neq), k, v)})',
    ]);
    expect(body('data.q with input.a as 1 with data.f as g')).toEqual(['ref(data, "q") with ref(input, "a") as 1 with ref(data, "f") as g']);
    const exprs = v1('p if {\n a\n b; c\n}').rules[0]!.body;
    expect(exprs.map((e) => e.index)).toEqual([0, 1, 2]);
  });
  it('expressions on one line need a separator', () => {
    expect(errorsOf(() => v1('p if { a b }'))[0]).toMatchObject({ message: 'unexpected identifier token: expected \\n or ; or }', row: 2, col: 10 });
  });
  it('some/every errors', () => {
    expect(errorsOf(() => v1('p if { not some x }'))[0]!.message).toBe("unexpected some keyword: illegal negation of 'some'");
    expect(errorsOf(() => v1('p if { every x in xs }'))[0]!.message).toMatch(/missing body/);
    expect(errorsOf(() => v1('p if { some 1 }'))[0]!.message).toBe('unexpected number token: expected var');
  });
  it('empty braces: a v0 body error; after `if` an empty object literal, as OPA parses it', () => {
    expect(errorsOf(() => v0('p { }'))[0]).toMatchObject({ message: 'found empty body', row: 2, col: 5 });
    expect(v1('p if { }').rules[0]!.body.map(showExpr)).toEqual(['{}']);
  });
});

describe('errors', () => {
  it('point at the offending token, with OPA formatting', () => {
    try {
      parseModule('package p\n\np := [1, 2', { filename: 'policy.rego' });
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(RegoParseError);
      const err = e as RegoParseError;
      expect(err.errors[0]).toMatchObject({ code: 'rego_parse_error', location: { file: 'policy.rego', row: 3 } });
      expect(err.message).toMatch(/^1 error occurred: policy\.rego:3: rego_parse_error: unexpected eof token/);
    }
    const errs = errorsOf(() => parseModule('package p\np := 1 @', { filename: 'x.rego' }));
    expect(errs[0]).toEqual({ message: 'illegal token', row: 2, col: 8, file: 'x.rego' });
  });
  it('several errors are reported together', () => {
    try {
      v1('p { true }\nq { true }');
    } catch (e) {
      expect((e as RegoParseError).message).toBe(
        '2 errors occurred:\np.rego:2: rego_parse_error: `if` keyword is required before rule body (hint: a Rego v0 policy? parse it with --v0-compatible)\np.rego:3: rego_parse_error: `if` keyword is required before rule body (hint: a Rego v0 policy? parse it with --v0-compatible)',
      );
    }
  });
  it('default rules must be constant', () => {
    expect(errorsOf(() => v1('default p := x'))[0]!.message).toBe('illegal default rule (value cannot contain var)');
  });
});

describe('comments, annotations, locations', () => {
  const src = `# METADATA
# title: Pkg
# description: the package
package p

# a comment
# METADATA
# title: Allow
# custom:
#   severity: high
allow if true # trailing
`;
  it('keeps comments and attaches METADATA to the next package or rule', () => {
    const m = parseModule(src, { filename: 'a.rego' });
    expect(m.comments.map((c) => c.text)).toContain(' trailing');
    expect(m.comments[0]!.location).toMatchObject({ row: 1, col: 1 });
    expect(m.annotations.map((a) => [a.scope, a.title])).toEqual([
      ['package', 'Pkg'],
      ['rule', 'Allow'],
    ]);
    expect(m.rules[0]!.annotations?.[0]?.custom).toEqual({ severity: 'high' });
  });
  it('invalid YAML is a parse error', () => {
    expect(errorsOf(() => parseModule('# METADATA\n# title: [unclosed\npackage p'))[0]!.message).toMatch(/^yaml: /);
  });
  it('locations on terms, exprs, rules and heads', () => {
    const m = parseModule('package p\n\nallow if {\n  input.x == 1\n}', { filename: 'f.rego' });
    const r = m.rules[0]!;
    expect(r.location).toMatchObject({ file: 'f.rego', row: 3, col: 1 });
    expect(r.location!.text).toBe('allow if {\n  input.x == 1\n}');
    expect(r.head.location).toMatchObject({ row: 3, col: 1, text: 'allow' });
    const e = r.body[0]!;
    expect(e.location).toMatchObject({ row: 4, col: 3, text: 'input.x == 1' });
    const terms = e.terms as { location?: { row: number; col: number; text: string } }[];
    expect(terms[0]!.location).toMatchObject({ row: 4, col: 11, text: '==' });
    expect(terms[1]!.location).toMatchObject({ row: 4, col: 3, text: 'input.x' });
    expect(terms[2]!.location).toMatchObject({ row: 4, col: 14, text: '1' });
  });
});

describe('JSON form', () => {
  it('matches OPA field names and shapes', () => {
    const m = parseModule('package a.b\nimport input.x as y\np[k] := 1 if { k := "a"; not input.z }\ns contains v if v := 2', { filename: 'j.rego' });
    const j = moduleToJSON(m) as Record<string, any>;
    expect(j['package']).toEqual({ path: [{ type: 'var', value: 'data' }, { type: 'string', value: 'a' }, { type: 'string', value: 'b' }] });
    expect(j['imports']).toEqual([{ path: { type: 'ref', value: [{ type: 'var', value: 'input' }, { type: 'string', value: 'x' }] }, alias: 'y' }]);
    expect(j['rules'][0].head).toEqual({
      name: 'p',
      ref: [{ type: 'var', value: 'p' }, { type: 'var', value: 'k' }],
      key: { type: 'var', value: 'k' },
      value: { type: 'number', value: 1 },
      assign: true,
    });
    expect(j['rules'][0].body[1]).toEqual({ negated: true, terms: { type: 'ref', value: [{ type: 'var', value: 'input' }, { type: 'string', value: 'z' }] }, index: 1 });
    expect(j['rules'][1].head).toEqual({ name: 's', ref: [{ type: 'var', value: 's' }], key: { type: 'var', value: 'v' } });
    const withLoc = moduleToJSON(m, { includeLocation: true }) as Record<string, any>;
    expect(withLoc['rules'][0].location).toEqual({ file: 'j.rego', row: 3, col: 1 });
  });
  it('queries', () => {
    expect(parseQuery('data.x.p = y; input.a > 1').map(showExpr)).toEqual([
      'expr(ref(eq), ref(data, "x", "p"), y)',
      'expr(ref(gt), ref(input, "a"), 1)',
    ]);
    expect(parseQuery('x := 1\ny := 2').length).toBe(2);
  });
});
