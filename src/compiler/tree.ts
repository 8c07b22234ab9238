// The package tree: every rule is placed at the node of its ground ref prefix
// (package path + the head ref's leading strings). A node holds the rules that define
// exactly that document (complete, partial set, function) and "general" rules whose head
// ref continues with variables below it (p[k] := v, p[q].r := v, p[q] contains r).

import type { Body, Location, Module, Rule, Term } from '../lang/ast.js';
import type { LocalNamer } from './locals.js';
import type { BuiltinOverlay } from './builtins/table.js';
import type { TypeDecl } from './builtins/types.js';

export type RuleKind = 'complete' | 'set' | 'general' | 'function';

export interface CompiledRule {
  id: number;
  kind: RuleKind;
  /** Full ground path from data root (package + head prefix). */
  path: string[];
  /** For general rules: the head ref terms after `path` (vars, or non-string keys). */
  suffix: Term[];
  /** Partial set member (set rules, and general rules with a set leaf). */
  key?: Term;
  /** Head value (complete, general with a value leaf, function). */
  value?: Term;
  /** Whether the leaf of a general rule is a set member (contains) rather than a value. */
  setLeaf: boolean;
  args?: Term[];
  body: Body;
  else?: CompiledRule;
  isDefault: boolean;
  module: Module;
  rule: Rule;
  location?: Location;
  namer: LocalNamer;
  /** Filled in by the evaluator the first time the rule runs (its closure plan). */
  plan?: unknown;
  /** Rule index filled in by the evaluator. */
  annotations?: unknown;
}

export class RuleNode {
  readonly children = new Map<string, RuleNode>();
  readonly complete: CompiledRule[] = [];
  readonly sets: CompiledRule[] = [];
  readonly general: CompiledRule[] = [];
  readonly funcs: CompiledRule[] = [];
  default?: CompiledRule;
  /** Whether any rule is defined at or below this node. */
  hasRules = false;
  /** Evaluator's caches (rule index, plan of the whole node). */
  cache: Record<string, unknown> = {};
  /** On the root only: the policy's custom built-ins (see builtins/table.ts). */
  builtins?: BuiltinOverlay;
  /** On the root only: the built-ins capabilities allow (unset: all), see CompileOptions. */
  allowedBuiltins?: ReadonlySet<string>;
  /** On the root only: the type of `input` from a JSON Schema (unset: any), see CompileOptions. */
  inputType?: TypeDecl;
  /** On the root only: the hosts capabilities' allow_net lets http.send reach (unset: any). */
  allowNet?: readonly string[];
  constructor(
    readonly path: string[],
    readonly parent: RuleNode | undefined,
  ) {}

  child(name: string): RuleNode {
    let c = this.children.get(name);
    if (!c) {
      c = new RuleNode([...this.path, name], this);
      this.children.set(name, c);
    }
    return c;
  }

  /** Defines the document at this node by itself (complete, set or function rules). */
  get isLeaf(): boolean {
    return this.complete.length > 0 || this.sets.length > 0 || this.funcs.length > 0 || this.default !== undefined;
  }

  get isFunction(): boolean {
    return this.funcs.length > 0 || this.default?.kind === 'function';
  }

  /** Number of arguments of the function defined here. */
  get arity(): number {
    return (this.funcs[0] ?? this.default)?.args?.length ?? 0;
  }

  find(path: readonly string[]): RuleNode | undefined {
    let n: RuleNode | undefined = this;
    for (const p of path) {
      n = n.children.get(p);
      if (!n) return undefined;
    }
    return n;
  }

  markHasRules(): void {
    for (let n: RuleNode | undefined = this; n && !n.hasRules; n = n.parent) n.hasRules = true;
  }

  *allRules(): Generator<CompiledRule> {
    yield* this.complete;
    yield* this.sets;
    yield* this.general;
    yield* this.funcs;
    if (this.default) yield this.default;
  }
}

export function addRule(root: RuleNode, r: CompiledRule): void {
  const node = placeNode(root, r.path);
  if (r.isDefault) {
    node.default = r;
  } else if (r.kind === 'complete') node.complete.push(r);
  else if (r.kind === 'set') node.sets.push(r);
  else if (r.kind === 'function') node.funcs.push(r);
  else node.general.push(r);
  node.markHasRules();
}

function placeNode(root: RuleNode, path: string[]): RuleNode {
  let n = root;
  for (const p of path) n = n.child(p);
  return n;
}
