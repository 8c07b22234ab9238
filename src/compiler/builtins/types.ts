// Built-in type declarations in the shape of OPA's capabilities JSON, with short
// constructors so that each built-in declares its own signature where it is defined.

export type TypeDecl =
  | { type: 'any'; of?: TypeDecl[] }
  | { type: 'null' }
  | { type: 'boolean' }
  | { type: 'number' }
  | { type: 'string' }
  | { type: 'array'; static?: TypeDecl[]; dynamic?: TypeDecl }
  | { type: 'set'; of: TypeDecl }
  | {
      type: 'object';
      /** Fixed keys are plain strings in OPA's capabilities JSON. */
      static?: { key: string; value: TypeDecl }[];
      dynamic?: { key: TypeDecl; value: TypeDecl };
    }
  | FunctionDecl;

export interface FunctionDecl {
  type: 'function';
  args?: TypeDecl[];
  result?: TypeDecl;
  variadic?: TypeDecl;
}

export const T = {
  any: { type: 'any' } as TypeDecl,
  null: { type: 'null' } as TypeDecl,
  boolean: { type: 'boolean' } as TypeDecl,
  number: { type: 'number' } as TypeDecl,
  string: { type: 'string' } as TypeDecl,
  /** A union: `any<a, b, ...>`. */
  anyOf: (...of: TypeDecl[]): TypeDecl => ({ type: 'any', of }),
  /** array[elem] */
  array: (dynamic: TypeDecl): TypeDecl => ({ type: 'array', dynamic }),
  /** array<a, b, ...> with fixed positions (optionally followed by a dynamic tail). */
  tuple: (items: TypeDecl[], dynamic?: TypeDecl): TypeDecl =>
    dynamic ? { type: 'array', static: items, dynamic } : { type: 'array', static: items },
  set: (of: TypeDecl): TypeDecl => ({ type: 'set', of }),
  /** object[key: value] */
  object: (key: TypeDecl, value: TypeDecl): TypeDecl => ({ type: 'object', dynamic: { key, value } }),
  /** object<k1: v1, ...> with fixed keys (optionally with a dynamic part). */
  record: (fields: { key: string; value: TypeDecl }[], dynamic?: { key: TypeDecl; value: TypeDecl }): TypeDecl =>
    dynamic ? { type: 'object', static: fields, dynamic } : { type: 'object', static: fields },
  fn: (args: TypeDecl[], result: TypeDecl): FunctionDecl => ({ type: 'function', args, result }),
  variadic: (variadic: TypeDecl, result?: TypeDecl): FunctionDecl =>
    result ? { type: 'function', variadic, result } : { type: 'function', variadic },
};
