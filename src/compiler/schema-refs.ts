// `--schema`: refs into `input` are checked against the type its JSON Schema gives
// (schema-types.ts), as OPA's type checker does (v1/ast/check.go, checkRefLeaf): a key the
// type cannot have, or a ref into a scalar, is `rego_type_error: undefined ref: <ref>` with
// OPA's details ({ref, pos, want, oneOf} or {ref, pos, have}). Where the type is a union or
// `any` the check stops there, so it never reports what OPA's checker might accept.

import type { RegoErrorDetail, Term } from '../lang/ast.js';
import { termToJSON } from '../lang/json-ast.js';
import type { TypeDecl } from './builtins/types.js';
import { typeString } from './const-types.js';
import { compileError, withLines } from './errors.js';
import { refString } from './ref-string.js';

type ObjectType = Extract<TypeDecl, { type: 'object' }>;

/** OPA's checkRefLeaf: the ref from `idx` on, against the type its prefix has. */
export function checkLeaf(tpe: TypeDecl, ref: Term[], idx: number, original?: (name: string) => string): RegoErrorDetail | undefined {
  if (idx === ref.length || tpe.type === 'any') return undefined;
  const head = ref[idx]!;
  if (tpe.type !== 'object' && tpe.type !== 'array' && tpe.type !== 'set') {
    return refError(ref, { ref: refJSON(ref), pos: idx - 1, have: tpe }, original);
  }
  if (head.type === 'string' || head.type === 'number' || head.type === 'boolean' || head.type === 'null') {
    const child = select(tpe, head);
    if (!child) return refError(ref, { ref: refJSON(ref), pos: idx, want: keysOf(tpe), oneOf: oneOf(tpe) }, original);
    return checkLeaf(child, ref, idx + 1, original);
  }
  // A variable, a ref or a composite key: any element may be meant.
  return checkLeaf(valuesOf(tpe), ref, idx + 1, original);
}

function select(tpe: TypeDecl, key: Term): TypeDecl | undefined {
  if (tpe.type === 'object') {
    const hit = key.type === 'string' ? tpe.static?.find((p) => p.key === key.value) : undefined;
    return hit?.value ?? tpe.dynamic?.value;
  }
  if (tpe.type === 'array') {
    if (key.type !== 'number') return undefined;
    const i = Number(key.value);
    return (Number.isInteger(i) ? tpe.static?.[i] : undefined) ?? tpe.dynamic;
  }
  if (tpe.type === 'set') return tpe.of;
  return undefined;
}

function keysOf(tpe: TypeDecl): TypeDecl {
  if (tpe.type === 'object') return union([...(tpe.static?.length ? [{ type: 'string' } as TypeDecl] : []), ...(tpe.dynamic ? [tpe.dynamic.key] : [])]);
  if (tpe.type === 'array') return { type: 'number' };
  if (tpe.type === 'set') return tpe.of;
  return { type: 'any' };
}

function valuesOf(tpe: TypeDecl): TypeDecl {
  if (tpe.type === 'object') return union([...(tpe.static ?? []).map((p) => p.value), ...(tpe.dynamic ? [tpe.dynamic.value] : [])]);
  if (tpe.type === 'array') return union([...(tpe.static ?? []), ...(tpe.dynamic ? [tpe.dynamic] : [])]);
  if (tpe.type === 'set') return tpe.of;
  return { type: 'any' };
}

/** OPA's oneOf: the object's fixed keys, sorted. */
function oneOf(tpe: TypeDecl): string[] | undefined {
  return tpe.type === 'object' && (tpe as ObjectType).static?.length ? (tpe as ObjectType).static!.map((p) => p.key).sort() : undefined;
}

/** One type, a union of several (checking stops at unions), any for none. */
function union(types: TypeDecl[]): TypeDecl {
  const distinct = types.filter((t, i) => types.findIndex((u) => JSON.stringify(u) === JSON.stringify(t)) === i);
  return distinct.length === 1 ? distinct[0]! : distinct.length ? { type: 'any', of: distinct } : { type: 'any' };
}

function refJSON(ref: Term[]): unknown[] {
  return ref.map((t) => termToJSON(t));
}

function refError(ref: Term[], details: Record<string, unknown>, original?: (name: string) => string): RegoErrorDetail {
  const text = refString(ref, original);
  const d = compileError('rego_type_error', `undefined ref: ${text}`, ref[0]!.location);
  d.details = withLines(Object.fromEntries(Object.entries(details).filter(([, v]) => v !== undefined)), refLines(ref, text, details, original));
  return d;
}

/** The lines OPA prints under an undefined ref (RefErrInvalidDetail / RefErrUnsupportedDetail). */
function refLines(ref: Term[], text: string, details: Record<string, unknown>, original?: (name: string) => string): string[] {
  const pos = details.pos as number;
  if (details.want === undefined) return [text, '^'.repeat(refString(ref.slice(0, pos + 1), original).length), `have: ${typeString(details.have as TypeDecl)}`];
  const pad = ' '.repeat(refString(ref.slice(0, pos), original).length + 1);
  const oneOf = details.oneOf as string[] | undefined;
  return [
    text,
    pad + '^',
    pad + (details.have !== undefined ? `have (type): ${typeString(details.have as TypeDecl)}` : `have: ${termText(ref[pos]!)}`),
    pad + (oneOf?.length ? `want (one of): [${oneOf.map((k) => JSON.stringify(k)).join(' ')}]` : `want (type): ${typeString(details.want as TypeDecl)}`),
  ];
}

function termText(t: Term): string {
  if (t.type === 'string') return JSON.stringify(t.value);
  if (t.type === 'number' || t.type === 'boolean') return String(t.value);
  if (t.type === 'null') return 'null';
  return refString([t]);
}
