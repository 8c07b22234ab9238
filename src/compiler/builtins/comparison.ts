// Declarations of the comparison built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "assign", decl: T.fn([T.any, T.any], T.boolean), infix: ":=" },
  { name: "eq", decl: T.fn([T.any, T.any], T.boolean), infix: "=" },
  { name: "equal", decl: T.fn([T.any, T.any], T.boolean), infix: "==" },
  { name: "gt", decl: T.fn([T.any, T.any], T.boolean), infix: ">" },
  { name: "gte", decl: T.fn([T.any, T.any], T.boolean), infix: ">=" },
  { name: "lt", decl: T.fn([T.any, T.any], T.boolean), infix: "<" },
  { name: "lte", decl: T.fn([T.any, T.any], T.boolean), infix: "<=" },
  { name: "neq", decl: T.fn([T.any, T.any], T.boolean), infix: "!=" },
]);
