// The formatter, construct by construct: each case gives the exact text opa fmt
// writes, and fmt() also checks that the tree is unchanged and the output stable.

import { describe, expect, it } from 'vitest';
import { formatText, parseModule, formatModule, RegoParseError } from '../../../src/lang/index.js';
import { fmt, lines } from './helpers.js';

describe('module layout', () => {
  it('separates package, import groups and rules by one blank line, with tabs', () => {
    const src = '\n\n# top\npackage   a.b\nimport data.z\nimport data.a   # beside a\n\nimport input.x as y\nallow   if {\n    input.user == "admin"\n}\n\n\n\ndeny := false\n';
    expect(fmt(src)).toBe(
      lines(
        '# top',
        'package a.b',
        '',
        'import data.a # beside a',
        'import data.z',
        '',
        'import input.x as y',
        '',
        'allow if {',
        '\tinput.user == "admin"',
        '}',
        '',
        'deny := false',
      ),
    );
  });

  it('keeps rules with at most one expression grouped when adjacent in the source', () => {
    expect(fmt('package p\na := 1\nb := 2\n\nc if input.x\nd := 3\nf(x) := x if {\n x > 1\n}\ng if {\n input.x\n input.y\n}\nh := 1\n')).toBe(
      lines('package p', '', 'a := 1', 'b := 2', '', 'c if input.x', 'd := 3', 'f(x) := x if {', '\tx > 1', '}', '', 'g if {', '\tinput.x', '\tinput.y', '}', '', 'h := 1'),
    );
  });

  it('brackets keywords and non-identifiers in package paths and refs', () => {
    expect(fmt('package test["if"].x\np := input["a-b"].c["in"][0]\n')).toBe(
      lines('package test["if"].x', '', 'p := input["a-b"].c["in"][0]'),
    );
  });
});

describe('rules', () => {
  it('keeps a single expression on the head line as `p if x`, braces otherwise', () => {
    const src = 'package p\na if { input.x }\n\nb if {\n  input.x\n}\n\nc if {\n input.x; input.y }\n';
    expect(fmt(src)).toBe(lines('package p', '', 'a if input.x', '', 'b if {', '\tinput.x', '}', '', 'c if {', '\tinput.x', '\tinput.y', '}'));
  });

  it('writes := for head values in v1 and keeps constants without bodies', () => {
    expect(fmt('package p\nx = 1\ny := {"a": [1, 2]}\nz = 3 if true\ndefault d = false\n')).toBe(
      lines('package p', '', 'x := 1', 'y := {"a": [1, 2]}', 'z := 3', '', 'default d := false'),
    );
  });

  it('writes partial sets with contains and partial objects with ref heads', () => {
    const src = 'package p\ns contains x if { some x in input.xs }\no[k] := v if {\n some k, v in input.m\n}\n\na.b.c contains 1\n';
    expect(fmt(src)).toBe(lines('package p', '', 's contains x if some x in input.xs', 'o[k] := v if {', '\tsome k, v in input.m', '}', '', 'a.b.c contains 1'));
  });

  it('writes ref heads as refs once one needs it, else as p["q"]', () => {
    expect(fmt('package p\na.b := 1\n')).toBe(lines('package p', '', 'a["b"] := 1'));
    expect(fmt('package p\na.b := 1\n\nx.y.z := 2\n')).toBe(lines('package p', '', 'a.b := 1', '', 'x.y.z := 2'));
  });

  it('formats functions, wildcard arguments and multi-line argument lists', () => {
    const src = 'package p\nf(x, _) := y if { y := x }\n\ng(a,\n b) if { a == b }\n\nh(x)\n';
    expect(fmt(src)).toBe(lines('package p', '', 'f(x, _) := y if y := x', '', 'g(', '\ta,', '\tb,', ') if {', '\ta == b', '}', '', 'h(x)'));
  });

  it('keeps else chains inline or on their own lines as written', () => {
    const src = 'package p\nr := 1 if {\n  input.a\n} else := 2 if {\n  input.b\n} else := 3\n\ns := 1 if {\n  input.a\n}\nelse := 2\n';
    expect(fmt(src)).toBe(
      lines('package p', '', 'r := 1 if {', '\tinput.a', '} else := 2 if {', '\tinput.b', '} else := 3', '', 's := 1 if {', '\tinput.a', '}', '', 'else := 2'),
    );
  });

  it('keeps `p.q := true` explicit, where dropping it would change the rule', () => {
    expect(fmt('package p\nobj["x"] := true if input.x\n')).toBe(lines('package p', '', 'obj["x"] := true if input.x'));
  });
});

describe('expressions', () => {
  it('writes one expression per line, keeping single blank lines between them', () => {
    expect(fmt('package p\na if {\n  x := 1;   y := 2\n\n\n  x < y\n}\n')).toBe(lines('package p', '', 'a if {', '\tx := 1', '\ty := 2', '', '\tx < y', '}'));
  });

  it('writes operators infix, with parentheses around nested operations', () => {
    const src = 'package p\na if {\n x := 1+2*3\n y := (1+2)*3\n z := plus(1, 2)\n w := count([1]) - 1\n}\n';
    expect(fmt(src)).toBe(lines('package p', '', 'a if {', '\tx := 1 + (2 * 3)', '\ty := (1 + 2) * 3', '\tz := 1 + 2', '\tw := count([1]) - 1', '}'));
  });

  it('keeps the parentheses the parse depends on', () => {
    const src = 'package p\na if {\n input.a == (input.x in input.xs)\n u := {(input.s | input.t)}\n v := [(input.s | input.t), 1]\n}\n';
    expect(fmt(src)).toBe(lines('package p', '', 'a if {', '\tinput.a == (input.x in input.xs)', '\tu := {(input.s | input.t)}', '\tv := [(input.s | input.t), 1]', '}'));
  });

  it('formats some, every, not and with (continued lines indented)', () => {
    const src =
      'package p\na if {\n some x,y\n some k, v in input.m\n not input.deny\n every z in input.zs { z > 0 }\n every i, z in input.zs {\n  z > i\n }\n' +
      ' data.q.allow with input as {"u": 1}\n data.q.allow with input as {}\n   with data.x as 1\n}\n';
    expect(fmt(src)).toBe(
      lines(
        'package p',
        '',
        'a if {',
        '\tsome x, y',
        '\tsome k, v in input.m',
        '\tnot input.deny',
        '\tevery z in input.zs { z > 0 }',
        '\tevery i, z in input.zs {',
        '\t\tz > i',
        '\t}',
        '\tdata.q.allow with input as {"u": 1}',
        '\tdata.q.allow with input as {}',
        '\t\twith data.x as 1',
        '}',
      ),
    );
  });

  it('moves a with that started its own line onto an indented line', () => {
    expect(fmt('package p\na if {\n data.q.allow\nwith input as 1\n   with data.x as 2\n}\n')).toBe(
      lines('package p', '', 'a if {', '\tdata.q.allow', '\t\twith input as 1', '\t\twith data.x as 2', '}'),
    );
  });

  it('writes an object comprehension key without needless parentheses', () => {
    expect(fmt('package p\nx := {(k in [1]): 1 | some k in [1]}\ny := {(a | b): 1 | a := {1}; b := {2}}\n')).toBe(
      lines('package p', '', 'x := {k in [1]: 1 | some k in [1]}', 'y := {(a | b): 1 | a := {1}; b := {2}}'),
    );
  });

  it('formats comprehensions on one line or one body expression per line', () => {
    const src =
      'package p\na := [x | some x in input.xs; x > 1]\nb := {x | some x in input.xs}\nc := {k: v | some k, v in input.m}\nd := [x |\n some x in input.xs\n x > 1\n]\n';
    expect(fmt(src)).toBe(
      lines(
        'package p',
        '',
        'a := [x | some x in input.xs; x > 1]',
        'b := {x | some x in input.xs}',
        'c := {k: v | some k, v in input.m}',
        'd := [x |',
        '\tsome x in input.xs',
        '\tx > 1',
        ']',
      ),
    );
  });
});

describe('terms', () => {
  it('keeps strings, raw strings and numbers as written', () => {
    const src = 'package p\ns := ["a\\u0041\\n", `raw\\n"x"`, "\\/"]\nn := [1.0, 1e3, 12345678901234567890, -0.5]\n';
    expect(fmt(src)).toBe(lines('package p', '', 's := ["a\\u0041\\n", `raw\\n"x"`, "\\/"]', 'n := [1.0, 1e3, 12345678901234567890, -0.5]'));
  });

  it('writes sets, empty sets, objects and nested refs', () => {
    expect(fmt('package p\ns := {1,2}\ne := set()\no := {"a":1,"b":{}}\nr := input.x[y].z[_]\n')).toBe(
      lines('package p', '', 's := {1, 2}', 'e := set()', 'o := {"a": 1, "b": {}}', 'r := input.x[y].z[_]'),
    );
  });

  it('keeps the line breaks of collections, one source row per line with a trailing comma', () => {
    expect(fmt('package p\nx := [1, 2,\n  3]\ny := {\n"a": 1,\n"b": 2}\nz := [\n1, 2]\n')).toBe(
      lines('package p', '', 'x := [', '\t1, 2,', '\t3,', ']', '', 'y := {', '\t"a": 1,', '\t"b": 2,', '}', '', 'z := [1, 2]'),
    );
  });
});

describe('comments', () => {
  it('keeps comments above, beside and at the end of bodies, and at the end of the file', () => {
    const src = 'package p\n\n# about a\na if { # opening\n  # first\n  input.x # beside\n  # last\n} # closing\n# the end   \n';
    expect(fmt(src)).toBe(
      lines('package p', '', '# about a', 'a if { # opening', '\t# first', '\tinput.x # beside', '\t# last', '} # closing', '', '# the end'),
    );
  });

  it('keeps comments inside collections', () => {
    expect(fmt('package p\nx := [\n  1, # one\n  # before two\n  2,\n  # before close\n]\n')).toBe(
      lines('package p', '', 'x := [', '\t1, # one', '\t# before two', '\t2,', '\t# before close', ']'),
    );
  });

  it('preserves METADATA blocks and their annotations', () => {
    const src = '# METADATA\n# title: pkg\npackage p\n\n# METADATA\n# title: Allow\n# description: allows things\nallow if input.ok\n';
    const out = fmt(src);
    expect(out).toBe(src);
    expect(parseModule(out).rules[0]!.annotations![0]!.title).toBe('Allow');
  });

  it('writes an expression as written when two line-end comments would share a line', () => {
    const src = 'package p\na if {\n  x := 1 + # one\n    2 # two\n  x > 0\n}\n';
    const out = fmt(src);
    expect(out).toContain('# one');
    expect(out).toContain('# two');
  });
});

describe('v0 and conversion to v1', () => {
  const v0 = 'package p\nimport future.keywords.in\n\ndefault allow = false\nallow { input.x in [1] }\ns[x] { x := 1 }\no[k] = v { k := "a"; v := 1 }\nf(x) = y { y := x }\nc = 1\n';

  it('formats v0 as v0: no `if`, partial sets as p[x]', () => {
    const src = 'package p\n\ndefault allow = false\nallow { input.x }\ns[x] { x := 1 }\n';
    expect(fmt(src, { from: 'v0' })).toBe(lines('package p', '', 'default allow = false', '', 'allow {', '\tinput.x', '}', '', 's[x] {', '\tx := 1', '}'));
  });

  it('--v0-v1 adds if and contains, writes := and drops v0 imports', () => {
    expect(fmt(v0, { from: 'v0', to: 'v1' })).toBe(
      lines(
        'package p',
        '',
        'default allow := false',
        '',
        'allow if input.x in [1]',
        's contains x if x := 1',
        '',
        'o[k] := v if {',
        '\tk := "a"',
        '\tv := 1',
        '}',
        '',
        'f(x) := y if y := x',
        'c := 1',
      ),
    );
  });

  it('keeps rego.v1 in v1 formatting but drops future imports next to it', () => {
    expect(fmt('package p\nimport rego.v1\nimport future.keywords.if\np if true\n')).toBe(lines('package p', '', 'import rego.v1', '', 'p := true'));
  });

  it('formatText parses with the requested version and reports parse errors', () => {
    expect(formatText('package p\np { true }\n', { parseVersion: 'v0', regoVersion: 'v1' })).toBe(lines('package p', '', 'p := true'));
    expect(() => formatText('package p\np { true }\n')).toThrow(RegoParseError);
    expect(formatModule(parseModule('package p\np { true }', { regoVersion: 'v0' }))).toBe(lines('package p', '', 'p = true'));
  });
});
