// OPA's `unifies(a, b)` (v1/ast/check.go): whether values of two types could be equal.
// `any` unifies with everything but functions; a union when one of its members does;
// arrays and objects position by position, key by key, both ways, then their dynamic parts.

import type { TypeDecl } from './builtins/types.js';

export function unifies(a: TypeDecl, b: TypeDecl): boolean {
  if (a.type === 'any' && unifiesAny(a, b)) return true;
  if (b.type === 'any' && unifiesAny(b, a)) return true;
  if (a.type === 'any' || b.type === 'any') return false;
  switch (a.type) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return b.type === a.type;
    case 'array':
      return b.type === 'array' && arrayStatic(a, b) && arrayStatic(b, a) && (!a.dynamic || !b.dynamic || unifies(a.dynamic, b.dynamic));
    case 'object':
      return b.type === 'object' && objectStatic(a, b) && objectStatic(b, a) && (!a.dynamic || !b.dynamic || unifies(a.dynamic.value, b.dynamic.value));
    case 'set':
      return b.type === 'set' && unifies(a.of, b.of);
    case 'function': {
      if (b.type !== 'function' || (a.args?.length ?? 0) !== (b.args?.length ?? 0)) return false;
      return (a.args ?? []).every((x, i) => unifies(x, b.args![i]!));
    }
  }
}

function unifiesAny(a: Extract<TypeDecl, { type: 'any' }>, b: TypeDecl): boolean {
  if (b.type === 'function') return false;
  if (!a.of?.length) return true;
  return a.of.some((x) => unifies(x, b));
}

type ArrayType = Extract<TypeDecl, { type: 'array' }>;
type ObjectType = Extract<TypeDecl, { type: 'object' }>;

function arrayStatic(a: ArrayType, b: ArrayType): boolean {
  return (a.static ?? []).every((x, i) => {
    const y = b.static?.[i] ?? b.dynamic;
    return y !== undefined && unifies(x, y);
  });
}

function objectStatic(a: ObjectType, b: ObjectType): boolean {
  return (a.static ?? []).every((p) => {
    const y = b.static?.find((q) => q.key === p.key)?.value ?? b.dynamic?.value;
    return y !== undefined && unifies(p.value, y);
  });
}
