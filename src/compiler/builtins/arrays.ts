// Declarations of the arrays built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "array.concat", decl: T.fn([T.array(T.any), T.array(T.any)], T.array(T.any)) },
  { name: "array.flatten", decl: T.fn([T.array(T.any)], T.array(T.any)) },
  { name: "array.reverse", decl: T.fn([T.array(T.any)], T.array(T.any)) },
  { name: "array.slice", decl: T.fn([T.array(T.any), T.number, T.number], T.array(T.any)) },
]);
