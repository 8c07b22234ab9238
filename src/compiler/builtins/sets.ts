// Declarations of the sets built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "and", decl: T.fn([T.set(T.any), T.set(T.any)], T.set(T.any)), infix: "&" },
  { name: "intersection", decl: T.fn([T.set(T.set(T.any))], T.set(T.any)) },
  { name: "or", decl: T.fn([T.set(T.any), T.set(T.any)], T.set(T.any)), infix: "|" },
  { name: "set_diff", decl: T.fn([T.set(T.any), T.set(T.any)], T.set(T.any)), deprecated: true },
  { name: "union", decl: T.fn([T.set(T.set(T.any))], T.set(T.any)) },
]);
