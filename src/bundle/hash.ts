// File digests for bundle signatures, computed as OPA computes them so that bundles signed
// by `opa build`/`opa sign` verify here and the reverse:
//  - unstructured files (policies, wasm, anything else): the hash of the raw bytes;
//  - structured files (data.json, data.yaml, .manifest): the document is parsed and
//    re-encoded compactly with object keys in byte order, strings encoded like Go's
//    encoding/json without HTML escaping, and numbers exactly as written.

import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import yaml from 'js-yaml';
import { parseJSONText, type JSONTree } from '../value/index.js';

/** Hash algorithm names as they appear in `.signatures.json`, mapped to node:crypto's. */
const ALGORITHMS: Record<string, string> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-224': 'sha224',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
  'SHA-512-224': 'sha512-224',
  'SHA-512-256': 'sha512-256',
};

export const DEFAULT_HASH_ALGORITHM = 'SHA-256';

export function isSupportedHashAlgorithm(name: string): boolean {
  return Object.hasOwn(ALGORITHMS, name);
}

/** OPA treats these base names as structured documents for hashing. */
export function isStructuredDoc(path: string): boolean {
  const base = posix.basename(path);
  return base === 'data.json' || base === 'data.yaml' || base === 'signatures.json' || base === '.manifest';
}

/** A number kept as its literal text. */
class Literal {
  constructor(readonly text: string) {}
}

/** Go's json encoding of a string (SetEscapeHTML(false)). */
export function goJSONString(s: string): string {
  // Lone surrogates cannot exist in Go strings (invalid UTF-8 becomes U+FFFD).
  const clean = s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  return JSON.stringify(clean).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function encode(v: unknown, out: string[]): void {
  if (v === null) out.push('null');
  else if (v instanceof Literal) out.push(v.text);
  else if (typeof v === 'string') out.push(goJSONString(v));
  else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
  else if (typeof v === 'number') out.push(goFloat(v));
  else if (typeof v === 'bigint') out.push(v.toString());
  else if (Array.isArray(v)) {
    out.push('[');
    v.forEach((x, i) => {
      if (i) out.push(',');
      encode(x, out);
    });
    out.push(']');
  } else if (v instanceof Date) {
    out.push(goJSONString(v.toISOString()));
  } else if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    out.push('{');
    Object.keys(o)
      .sort(byteOrder)
      .forEach((k, i) => {
        if (i) out.push(',');
        out.push(goJSONString(k), ':');
        encode(o[k], out);
      });
    out.push('}');
  } else {
    throw new Error(`cannot hash value of type ${typeof v}`);
  }
}

/** Go's encoding of a float64 (used only for YAML numbers, which have no JSON literal). */
function goFloat(n: number): string {
  if (!Number.isFinite(n)) throw new Error('cannot hash non-finite number');
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    // Go writes e.g. 1e-07 and 1e+21: a two-digit exponent at least.
    return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(n);
}

/** The canonical text OPA hashes for a structured document given as JSON text. */
export function canonicalJSON(text: string): string {
  const tree: JSONTree<Literal> = parseJSONText(text, (lit) => new Literal(lit));
  const out: string[] = [];
  encode(tree, out);
  return out.join('');
}

/** The canonical text of a YAML document (numbers re-encoded as Go would). */
export function canonicalYAML(text: string): string {
  const out: string[] = [];
  encode(yaml.load(text, { schema: yaml.CORE_SCHEMA }) ?? null, out);
  return out.join('');
}

/**
 * The hex digest OPA records for a bundle file: `path` decides structured or not,
 * `bytes` is the file as stored in the bundle.
 */
export function hashBundleFile(path: string, bytes: Uint8Array, algorithm = DEFAULT_HASH_ALGORITHM): string {
  const alg = ALGORITHMS[algorithm];
  if (!alg) throw new Error(`unsupported hashing algorithm: ${algorithm}`);
  const h = createHash(alg);
  if (isStructuredDoc(path)) {
    const text = Buffer.from(bytes).toString('utf8');
    const base = posix.basename(path);
    h.update(base === 'data.yaml' ? canonicalYAML(text) : canonicalJSON(text), 'utf8');
  } else {
    h.update(bytes);
  }
  return h.digest('hex');
}
