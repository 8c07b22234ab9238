// YAML built-ins, aiming at what OPA (sigs.k8s.io/yaml over go-yaml v2) produces:
// YAML 1.1 booleans (yes/no/on/off), no timestamp decoding, first document only,
// sorted keys and unindented block sequences when marshalling.

import yaml from 'js-yaml';
import { compareStrings, newPlainObject, parseNumber, toJS, type Value } from '../../../value/index.js';
import { builtinError } from '../errors.js';
import { registerBuiltins, type BuiltinImpl } from '../registry.js';
import { str } from '../args.js';
import { isValid } from '../is-valid.js';
import { goYAMLIntType, goYAMLPlainLooksTyped } from './int.js';

// go-yaml v2's booleans (YAML 1.1); this type replaces js-yaml's core one, so it lists true/false too.
const BOOL11 = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|true|True|TRUE|false|False|FALSE)$/;

const yaml11Bool = new yaml.Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (d: unknown) => typeof d === 'string' && BOOL11.test(d),
  construct: (d: string) => /^(?:y|yes|on|true)$/i.test(d),
  predicate: (o: unknown) => typeof o === 'boolean',
  represent: (o: unknown) => String(o),
});

const SCHEMA = yaml.CORE_SCHEMA.extend({ implicit: [yaml11Bool, ...(yaml.DEFAULT_SCHEMA as unknown as { implicit: yaml.Type[] }).implicit.filter((t) => (t as unknown as { tag: string }).tag === 'tag:yaml.org,2002:merge')] });

// Reading: integers as go-yaml v2 resolves them (octal "017", "1_000", exact uint64).
const LOAD_SCHEMA = SCHEMA.extend({ implicit: [goYAMLIntType] });
// Writing: quote the strings go-yaml v2 would not leave plain.
const DUMP_SCHEMA = SCHEMA.extend({ implicit: [goYAMLPlainLooksTyped] });

/** js-yaml's result as a Rego value (keys are strings; numbers stay numbers). */
function fromYAML(v: unknown): Value {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return v;
    // .inf / .nan have no JSON form; OPA fails on them as well.
    throw builtinError('json: unsupported value: ' + String(v).replace('Infinity', '+Inf'));
  }
  if (typeof v === 'bigint') return parseNumber(v.toString())!;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(fromYAML);
  if (typeof v === 'object') {
    const o = newPlainObject();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) o[k] = fromYAML(x);
    return o;
  }
  return String(v);
}

function goYAMLError(e: yaml.YAMLException, src: string): string {
  // js-yaml puts end-of-input errors on the line after the last one; go-yaml on the last.
  const lines = src.replace(/\n$/, '').split('\n').length;
  const line = Math.min((e.mark?.line ?? 0) + 1, lines);
  let reason = e.reason ?? e.message;
  if (/end of the stream within a flow collection|missed comma between flow collection entries/.test(reason))
    reason = "did not find expected ',' or ']'";
  return `error converting YAML to JSON: yaml: line ${line}: ${reason}`;
}

export function unmarshalYAML(s: string): Value {
  let docs: unknown[];
  try {
    docs = yaml.loadAll(s, undefined, { schema: LOAD_SCHEMA, json: true });
  } catch (e) {
    if (e instanceof yaml.YAMLException) throw builtinError(goYAMLError(e, s));
    throw e;
  }
  return fromYAML(docs[0]);
}

export function marshalYAML(v: Value): string {
  const js = toJS(v);
  if (js === null) return 'null\n';
  return yaml.dump(js, {
    schema: DUMP_SCHEMA,
    indent: 2,
    noArrayIndent: true,
    lineWidth: -1,
    noRefs: true,
    quotingType: '"',
    sortKeys: (a: string, b: string) => compareStrings(a, b),
  });
}

const defs: BuiltinImpl[] = [
  { name: 'yaml.marshal', fn: (a) => marshalYAML(a[0]!) },
  { name: 'yaml.unmarshal', fn: (a) => unmarshalYAML(str(a, 0)) },
  {
    name: 'yaml.is_valid',
    fn: isValid(unmarshalYAML),
  },
];

registerBuiltins(defs);
