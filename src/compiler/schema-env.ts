// The types a rule's refs into `input` and `data` are checked against: the global input type
// (`--schema <file>`) plus the rule's `schemas:` annotations, applied as OPA's checkRule does
// (v1/ast/check.go): subpackages (outermost first), package, document, then rule scope, each
// one putting its type at its path, or merging it into the type of the shortest typed prefix
// of that path (OPA's "override"), so a later, closer annotation wins.

import type { Annotations, Module, RegoErrorDetail, Term } from '../lang/ast.js';
import { parseRef } from '../lang/module.js';
import type { TypeDecl } from './builtins/types.js';
import { compileError } from './errors.js';
import { packagePath } from './resolve.js';
import { SchemaError, schemaToType } from './schema-types.js';
import type { CompiledRule } from './tree.js';

/**
 * Schemas from `--schema <dir>` by their path under the directory without the extension
 * (`input`, `k8s/pod`), named in annotations as `schema.input`, `schema.k8s.pod`. A single
 * file is the root, key `''`.
 */
export type SchemaSet = ReadonlyMap<string, unknown>;

type ObjectType = Extract<TypeDecl, { type: 'object' }>;
type Key = string | number;

/** One typed path: `input...` or `data...`, its keys constant. */
export interface TypedPath {
  path: Key[];
  type: TypeDecl;
}

export class TypeEnv {
  constructor(readonly entries: TypedPath[] = []) {}

  get empty(): boolean {
    return this.entries.length === 0;
  }

  /** The entry whose path starts `keys` (keys as far as they are constant), if any. */
  lookup(keys: (Key | undefined)[]): TypedPath | undefined {
    return this.entries.find((e) => e.path.length <= keys.length && e.path.every((k, i) => keys[i] === k));
  }

  /** OPA's Put-or-override of one annotation's type at its path. */
  put(path: Key[], type: TypeDecl): TypeEnv {
    const prefix = this.entries.find((e) => e.path.length <= path.length && e.path.every((k, i) => path[i] === k));
    const rest = this.entries.filter((e) => e !== prefix && !startsWith(e.path, path));
    if (!prefix || prefix.path.length === path.length) return new TypeEnv([...rest, { path, type }]);
    return new TypeEnv([...rest, { path: prefix.path, type: override(path.slice(prefix.path.length), prefix.type, type) }]);
  }
}

function startsWith(path: Key[], prefix: Key[]): boolean {
  return prefix.length <= path.length && prefix.every((k, i) => path[i] === k);
}

const ANY_ANY = { key: { type: 'any' } as TypeDecl, value: { type: 'any' } as TypeDecl };

/** `t` with the type at `ref` (relative to t) replaced by `o`; keys t lacks are added. */
function override(ref: Key[], t: TypeDecl, o: TypeDecl): TypeDecl {
  if (t.type !== 'object') return nested(ref, o, ANY_ANY);
  const head = String(ref[0]);
  const statics = (t.static ?? []).map((p) => (p.key === head ? { key: p.key, value: ref.length === 1 ? o : override(ref.slice(1), p.value, o) } : p));
  if (!statics.some((p) => p.key === head)) statics.push(...(nested(ref, o, t.dynamic) as ObjectType).static!);
  statics.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return t.dynamic ? { type: 'object', static: statics, dynamic: t.dynamic } : { type: 'object', static: statics };
}

/** object<k0: object<k1: ... o>> with the given dynamic part at every level (OPA's getObjectType). */
function nested(ref: Key[], o: TypeDecl, dynamic: ObjectType['dynamic']): TypeDecl {
  const value = ref.length === 1 ? o : nested(ref.slice(1), o, dynamic);
  const statics = [{ key: String(ref[0]), value }];
  return dynamic ? { type: 'object', static: statics, dynamic } : { type: 'object', static: statics };
}

/** Builds each rule's environment from the annotations of the modules; caches schema types. */
export class SchemaScopes {
  private readonly byPackage = new Map<string, Annotations[]>();
  private readonly subpackages = new Map<string, Annotations[]>();
  private readonly documents = new Map<string, Annotations[]>();
  private readonly fromSet = new Map<string, TypeDecl>();
  private anyRuleScoped = false;

  constructor(
    private readonly global: TypeEnv,
    private readonly schemas: SchemaSet | undefined,
    modules: Module[],
    rules: CompiledRule[],
  ) {
    const add = (m: Map<string, Annotations[]>, key: string, a: Annotations) => {
      const list = m.get(key);
      if (list) list.push(a);
      else m.set(key, [a]);
    };
    for (const mod of modules) {
      const key = packagePath(mod).join('\u0000');
      for (const a of mod.annotations) {
        if (!a.schemas?.length) continue;
        if (a.scope === 'package') add(this.byPackage, key, a);
        if (a.scope === 'subpackages') add(this.subpackages, key, a);
      }
    }
    for (const r of rules)
      for (const a of r.rule.annotations ?? []) {
        if (!a.schemas?.length) continue;
        if (a.scope === 'document') add(this.documents, r.path.join('\u0000'), a);
        else this.anyRuleScoped = true;
      }
  }

  /** Whether any rule can have a type to check against. */
  get active(): boolean {
    return !this.global.empty || this.byPackage.size + this.subpackages.size + this.documents.size > 0 || this.anyRuleScoped;
  }

  /** The environment of one rule; an `else` branch has no rule-scoped annotations of its own (as in OPA). */
  envFor(r: CompiledRule, isElse: boolean, errors: RegoErrorDetail[]): TypeEnv {
    const pkg = packagePath(r.module);
    const list: Annotations[] = [];
    for (let i = 0; i <= pkg.length; i++) list.push(...(this.subpackages.get(pkg.slice(0, i).join('\u0000')) ?? []));
    list.push(...(this.byPackage.get(pkg.join('\u0000')) ?? []));
    list.push(...(this.documents.get(r.path.join('\u0000')) ?? []));
    if (!isElse) list.push(...(r.rule.annotations ?? []).filter((a) => (a.scope ?? 'rule') === 'rule'));
    let env = this.global;
    for (const a of list)
      for (const s of a.schemas ?? []) {
        const path = annotationPath(s.path);
        const type = this.typeOf(s, r, errors);
        if (path && type) env = env.put(path, type);
      }
    return env;
  }

  private typeOf(s: { schema?: unknown; definition?: unknown }, r: CompiledRule, errors: RegoErrorDetail[]): TypeDecl | undefined {
    let schema: unknown;
    let key: string | undefined;
    if (typeof s.schema === 'string') {
      // As OPA: a schema named by ref is only read when schemas were given (--schema).
      if (!this.schemas) return undefined;
      key = schemaKey(s.schema);
      const hit = this.fromSet.get(key);
      if (hit) return hit;
      if (!this.schemas.has(key)) {
        errors.push(compileError('rego_type_error', `undefined schema: ${s.schema}`, r.location));
        return undefined;
      }
      schema = this.schemas.get(key);
    } else if (s.definition !== undefined) schema = s.definition;
    else return undefined;
    try {
      const t = schemaToType(schema);
      if (key !== undefined) this.fromSet.set(key, t);
      return t;
    } catch (e) {
      if (!(e instanceof SchemaError)) throw e;
      errors.push(compileError('rego_type_error', e.message, r.location));
      return undefined;
    }
  }
}

/** `schema.k8s.pod` -> `k8s/pod`; `schema` -> `` (the single file given to --schema). */
function schemaKey(ref: string): string {
  return refKeys(ref).slice(1).map(String).join('/');
}

/** The constant keys of an annotation's path (`input.x`, `data.acl["a b"]`), or undefined. */
function annotationPath(path: unknown): Key[] | undefined {
  if (typeof path !== 'string') return undefined;
  const keys = refKeys(path);
  return keys[0] === 'input' || keys[0] === 'data' ? keys : undefined;
}

function refKeys(text: string): Key[] {
  let terms: Term[];
  try {
    terms = parseRef(text).value;
  } catch {
    return [];
  }
  const out: Key[] = [];
  for (const t of terms) {
    if (t.type === 'var' || t.type === 'string') out.push(t.value);
    else if (t.type === 'number') out.push(Number(t.value));
    else return [];
  }
  return out;
}
