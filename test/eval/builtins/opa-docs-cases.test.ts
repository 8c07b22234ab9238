// Cases for the built-in directories OPA's conformance suite has not brought here yet
// (regex*, globquotemeta, replacen, trim*, numbersrange*, base64*, hex, bits*, object and
// json idempotence / non-string keys, rand, crypto*): each expected value is what OPA
// returns (its policy-reference examples, and Go's library semantics for the edges).
import { describe, expect, it } from 'vitest';
import { Regolith, RegoEvalError, toJSONText } from '../../../src/index.js';

/** The JSON text of `expr` evaluated by a query, or "undefined". */
function evalText(expr: string, strict = false): string {
  const res = new Regolith().prepare(`x := ${expr}`).evaluateRaw({ strictBuiltinErrors: strict });
  return res.length ? toJSONText(res[0]!.bindings.get('x')!) : 'undefined';
}

function evalError(expr: string): { code: string; message: string } {
  try {
    evalText(expr, true);
  } catch (e) {
    if (e instanceof RegoEvalError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('no error for ' + expr);
}

const table: Record<string, [string, string][]> = {
  regex: [
    ['regex.match(`^[^@]+@[^@]+\\.[^@]+$`, "name@example.com")', 'true'],
    ['regex.find_all_string_submatch_n(`^[^+@]+(\\+[^@]*)?@([^@]+)$`, "foo+test@example.com", 1)', '[["foo+test@example.com","+test","example.com"]]'],
    ['regex.find_all_string_submatch_n(`a(x*)b`, "-ab-axxb-", -1)', '[["ab",""],["axxb","xx"]]'],
    ['regex.find_n(`[0-9]+`, "a1b22c333", 2)', '["1","22"]'],
    ['regex.find_n(`a.*?b`, "aXbYb", -1)', '["aXb"]'], // non-greedy
    ['regex.match(`\\pL+$`, "héllo")', 'true'], // Unicode classes
    ['regex.match(`^\\p{Greek}+$`, "αβγ")', 'true'],
    ['regex.split(`[,;]`, "a,b;c")', '["a","b","c"]'],
    ['regex.split(`a+`, "baaac")', '["b","c"]'],
    ['regex.replace("Hello World", "o", "0")', '"Hell0 W0rld"'],
    ['regex.replace("abc", "(b)", "$1x")', '"ac"'], // Go reads $1x as the group named "1x"
    ['regex.replace("abc", "(b)", "${1}x")', '"abxc"'],
    ['regex.template_match("urn:foo:{.*}", "urn:foo:bar:baz", "{", "}")', 'true'],
    ['regex.template_match("urn:foo:<[a-z]+>", "urn:foo:BAR", "<", ">")', 'false'],
    ['regex.globs_match("a.a.[0-9]+z", ".b.b2359825792*594823z")', 'true'],
    ['regex.globs_match("[a-z]+", "[0-9]*")', 'false'],
    ['regex.is_valid("(?=x)")', 'false'], // no lookahead in RE2
    ['regex.match(`(a)\\1`, "aa")', 'undefined'], // no backreferences: an error, undefined unless strict
  ],
  globquotemeta: [
    ['glob.quote_meta("*.github.com")', '"\\\\*.github.com"'],
    ['glob.quote_meta("{a,b}?[c]")', '"\\\\{a,b\\\\}\\\\?\\\\[c\\\\]"'],
    ['glob.match(glob.quote_meta("*.x"), [], "*.x")', 'true'],
    ['glob.match(glob.quote_meta("*.x"), [], "a.x")', 'false'],
    ['glob.match("*.github.com", [], "api.github.com")', 'true'],
    ['glob.match("*.github.com", ["."], "api.cdn.github.com")', 'false'],
    ['glob.match("**.github.com", ["."], "api.cdn.github.com")', 'true'],
    ['glob.match("{cat,bat,[fr]at}", [], "rat")', 'true'],
    ['glob.match("[!a-c]at", [], "cat")', 'false'],
  ],
  replacen: [
    ['strings.replace_n({"$name": "Alice", "$age": "30"}, "$name is $age")', '"Alice is 30"'],
    ['strings.replace_n({"a": "b", "b": "a"}, "ab")', '"ba"'], // no re-replacement
    ['strings.replace_n({"$n": "x", "$name": "Alice"}, "Hi $name")', '"Hi xame"'], // keys in sorted order, first match wins
    ['replace("aaa", "", "-")', '"-a-a-a-"'],
  ],
  trim: [
    ['trim("??hello??", "?")', '"hello"'],
    ['trim_left("??hello??", "?")', '"hello??"'],
    ['trim_right("??hello??", "?")', '"??hello"'],
    ['trim_prefix("??hello??", "??")', '"hello??"'],
    ['trim_suffix("??hello??", "??")', '"??hello"'],
    ['trim_space("\\t hello \\n")', '"hello"'],
    ['trim("abcba", "ab")', '"c"'],
    ['trim_left("aaa", "")', '"aaa"'],
  ],
  numbersrange: [
    ['numbers.range(1, 3)', '[1,2,3]'],
    ['numbers.range(3, 1)', '[3,2,1]'],
    ['numbers.range(0, -3)', '[0,-1,-2,-3]'],
    ['numbers.range(100000000000000000000, 100000000000000000002)', '[100000000000000000000,100000000000000000001,100000000000000000002]'],
    ['numbers.range_step(0, 10, 3)', '[0,3,6,9]'],
    ['numbers.range_step(10, 0, 3)', '[10,7,4,1]'],
    ['numbers.range_step(1, 1, 5)', '[1]'],
  ],
  base64: [
    ['base64.encode("hello")', '"aGVsbG8="'],
    ['base64.decode("aGVsbG8=")', '"hello"'],
    ['base64.is_valid("aGVsbG8=")', 'true'],
    ['base64.is_valid("aGVsbG8")', 'false'],
    ['base64url.encode("subjects?_d")', '"c3ViamVjdHM_X2Q="'],
    ['base64url.decode("c3ViamVjdHM_X2Q=")', '"subjects?_d"'],
    ['base64url.decode("c3ViamVjdHM_X2Q")', '"subjects?_d"'], // padding optional
    ['base64url.encode_no_pad("hello")', '"aGVsbG8"'],
  ],
  hex: [
    ['hex.encode("hello")', '"68656c6c6f"'],
    ['hex.decode("48656C6C6F")', '"Hello"'],
    ['hex.encode("")', '""'],
  ],
  bits: [
    ['bits.or(5, 3)', '7'],
    ['bits.and(5, 3)', '1'],
    ['bits.xor(5, 3)', '6'],
    ['bits.negate(5)', '-6'],
    ['bits.lsh(1, 70)', '1180591620717411303424'], // arbitrary precision, as Go's big.Int
    ['bits.rsh(-16, 2)', '-4'],
    ['bits.and(-1, 5)', '5'],
    ['bits.and(12345678901234567890, 255)', '210'],
  ],
  objects: [
    ['object.remove({1: "a", "b": 2, [1]: 3}, [1, [1]])', '{"b":2}'],
    ['object.keys(object.filter({1: "a", "b": 2}, {1}))', '[1]'], // the number key stays a number
    ['object.get({1: {2: "x"}}, [1, 2], null)', '"x"'],
    ['object.union({1: {"a": 1}}, {1: {"b": 2}})[1]', '{"a":1,"b":2}'],
    ['object.union({"a": 1}, {"a": 1})', '{"a":1}'],
    ['object.remove(object.remove({"a": 1, "b": 2}, ["a"]), ["a"])', '{"b":2}'],
    ['object.filter(object.filter({"a": 1, "b": 2}, ["a"]), ["a"])', '{"a":1}'],
    ['object.union_n([{"a": 1}, {"a": 1}])', '{"a":1}'],
  ],
  json: [
    ['json.unmarshal(json.marshal({"a": [1, 2.5, "x", null, true, {"b": {}}]}))', '{"a":[1,2.5,"x",null,true,{"b":{}}]}'],
    ['json.marshal(json.unmarshal("{\\"b\\":[1,2.5],\\"a\\":{}}"))', '"{\\"a\\":{},\\"b\\":[1,2.5]}"'],
    ['json.filter(json.filter({"a": {"b": 1, "c": 2}}, ["a/b"]), ["a/b"])', '{"a":{"b":1}}'],
    ['json.remove(json.remove({"a": {"b": 1, "c": 2}}, ["a/b"]), ["a/b"])', '{"a":{"c":2}}'],
    ['json.remove({"a": [1, 2, 3]}, ["a/1"])', '{"a":[1,3]}'],
    ['json.remove({"a": [1, 2, 3]}, [["a", 1]])', '{"a":[1,2,3]}'], // array indexes match as strings only
    ['json.marshal({"<": "&"})', '"{\\"\\\\u003c\\":\\"\\\\u0026\\"}"'], // Go escapes HTML characters
    ['json.patch({"a": 1}, [{"op": "test", "path": "/a", "value": 2}])', 'undefined'],
  ],
  crypto: [
    ['crypto.md5("hello")', '"5d41402abc4b2a76b9719d911017c592"'],
    ['crypto.sha1("hello")', '"aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"'],
    ['crypto.sha256("")', '"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"'],
    ['crypto.hmac.sha256("hello", "key")', '"9307b3b915efb5171ff14d8cb55fbcc798c6c0ef1456d66ded1a6aa723a58b7b"'],
    ['crypto.hmac.md5("hello", "key")', '"04130747afca4d79e32e87cf2104f087"'],
    ['crypto.hmac.equal("4a", "4b")', 'false'],
  ],
};

describe('built-ins without OPA conformance files yet', () => {
  for (const [dir, cases] of Object.entries(table)) {
    it(dir, () => {
      for (const [expr, want] of cases) expect(`${expr} => ${evalText(expr)}`).toBe(`${expr} => ${want}`);
    });
  }

  it('rand.intn: within bounds, one answer per query for the same arguments', () => {
    const r = new Regolith().addModule('p.rego', 'package p\na := rand.intn("k", 1000000)\nb := rand.intn("k", 1000000)\nz := rand.intn("k", 0)\nn := rand.intn("k", -5)');
    for (let i = 0; i < 20; i++) {
      const v = r.prepare('data.p').evaluate()[0]!.expressions[0]!.value as { a: number; b: number; z: number; n: number };
      expect(v.a).toBe(v.b);
      expect(v.a >= 0 && v.a < 1000000).toBe(true);
      expect(v.z).toBe(0);
      expect(v.n >= 0 && v.n < 5).toBe(true); // OPA uses the absolute value of n
    }
  });

  it('errors carry OPA codes and messages under strict-builtin-errors', () => {
    expect(evalError('regex.match(`(a)\\1`, "aa")')).toMatchObject({ code: 'eval_builtin_error', message: expect.stringContaining('regex.match: error parsing regexp: invalid escape sequence: `\\1`') });
    expect(evalError('numbers.range_step(1, 10, 0)').message).toContain('numbers.range_step: numbers.range_step: step must be a positive number above zero');
    expect(evalError('hex.decode("6")').message).toContain('hex.decode: encoding/hex: odd length hex string');
    expect(evalError('base64.decode("!!!")').message).toContain('base64.decode: illegal base64 data at input byte 0');
    expect(evalError('json.patch({"a": 1}, [{"op": "test", "path": "/a", "value": 2}])')).toMatchObject({
      code: 'eval_builtin_error',
      message: expect.stringContaining('json.patch: value from EditTree != patch value.\n\nExpected: 2\n\nFound: 1'),
    });
    const t = evalError('object.subset({1, 2}, [1])');
    expect(t.code).toBe('eval_type_error');
    expect(t.message).toContain('object.subset: both arguments object.subset must be of the same type or array and set');
  });
});
