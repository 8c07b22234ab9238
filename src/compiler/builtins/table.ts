// The table of built-in declarations: name, type signature and flags, as OPA's
// capabilities JSON lists them. The compiler's checks read it; `regolith capabilities`
// prints it; the evaluator's implementations register against it (src/eval/builtins).

import type { FunctionDecl } from './types.js';

export interface BuiltinDecl {
  name: string;
  decl: FunctionDecl;
  /** Infix operator, as in capabilities (`+`, `==`, `in`, ...). */
  infix?: string;
  /** Yields every output (e.g. walk) rather than one value. */
  relation?: boolean;
  nondeterministic?: boolean;
  deprecated?: boolean;
}

const table = new Map<string, BuiltinDecl>();

export function declareBuiltins(decls: BuiltinDecl[]): void {
  for (const d of decls) {
    if (table.has(d.name)) throw new Error(`built-in ${d.name} declared twice`);
    table.set(d.name, d);
  }
}

export function getDeclaration(name: string): BuiltinDecl | undefined {
  return table.get(name);
}

/**
 * Built-ins a library user or a `--builtins` module adds to one policy
 * (src/engine/custom-builtins.ts). The compiled policy's root carries them, so two
 * instances never see each other's; their names never shadow the table's.
 */
export interface BuiltinOverlay {
  get(name: string): BuiltinDecl | undefined;
}

/** The declaration of a built-in, the policy's own ones included. */
export function declarationIn(overlay: BuiltinOverlay | undefined, name: string): BuiltinDecl | undefined {
  return table.get(name) ?? overlay?.get(name);
}

/** Every declaration, sorted by name. */
export function allDeclarations(): BuiltinDecl[] {
  return [...table.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The built-ins in OPA's capabilities JSON format (with a policy's custom ones, when given). */
export function capabilitiesBuiltins(custom?: { list(): BuiltinDecl[] }): unknown[] {
  const decls = custom ? [...allDeclarations(), ...custom.list()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) : allDeclarations();
  return decls.map((d) => {
    const out: Record<string, unknown> = { name: d.name, decl: d.decl };
    if (d.infix) out.infix = d.infix;
    if (d.relation) out.relation = true;
    if (d.nondeterministic) out.nondeterministic = true;
    if (d.deprecated) out.deprecated = true;
    return out;
  });
}
