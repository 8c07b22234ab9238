// Plain scalars that go-yaml v2 (under OPA's yaml.unmarshal) reads as integers: underscores
// dropped, then Go's strconv.ParseInt/ParseUint with base 0 — so "017" and "0o17" are octal
// (15), "0b101" binary, "0x1F" hex, and values up to uint64 stay exact.

import yaml from 'js-yaml';

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** The integer Go's base-0 parse gives for `s`, or undefined when it is not one. */
export function goYAMLInt(text: string): bigint | undefined {
  const s = text.replace(/_/g, '');
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return undefined;
  const body = m[2]!;
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt('0o' + body.slice(2));
  else if (/^0[0-7]+$/.test(body)) v = BigInt('0o' + body.slice(1)); // a leading 0 means octal in Go
  else v = BigInt(body); // BigInt reads 0x / 0b prefixes and decimals
  if (m[1] === '-') v = -v;
  // ParseInt's int64 range, or ParseUint's for non-negative values.
  if (v < INT64_MIN || v > UINT64_MAX) return undefined;
  if (m[1] === '-' && v === 0n) return 0n;
  return v;
}

/** A js-yaml type resolving plain integers as go-yaml v2 does; constructs a bigint. */
export const goYAMLIntType = new yaml.Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (d: unknown) => typeof d === 'string' && goYAMLInt(d) !== undefined,
  construct: (d: string) => goYAMLInt(d)!,
  predicate: (o: unknown) => typeof o === 'bigint',
  represent: (o: unknown) => String(o),
});

// go-yaml v2 quotes a string when reading it back plain would give another type: besides
// booleans and numbers js-yaml knows, that is Go-style integers ("1_000"), floats with
// underscores ("1.5_0") and timestamps ("2001-12-14"). This type only answers that test
// when marshalling; it never matches a value to dump.
const GO_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const TIMESTAMP = /^\d{4}-\d\d?-\d\d?(?:(?:[Tt]|[ \t]+)\d\d?:\d\d:\d\d(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d\d?(?::\d\d)?))?)?$/;

export const goYAMLPlainLooksTyped = new yaml.Type('tag:regolith,2024:go-yaml-typed-plain', {
  kind: 'scalar',
  resolve: (d: unknown) =>
    typeof d === 'string' && (goYAMLInt(d) !== undefined || GO_FLOAT.test(d.replace(/_/g, '')) || TIMESTAMP.test(d)),
  predicate: () => false,
});
