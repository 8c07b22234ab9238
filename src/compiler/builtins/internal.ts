// Declarations of the internal built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "internal.member_2", decl: T.fn([T.any, T.any], T.boolean), infix: "in" },
  { name: "internal.member_3", decl: T.fn([T.any, T.any, T.any], T.boolean), infix: "in" },
  { name: "internal.test_case", decl: { type: 'function', args: [T.array(T.any)] } },
]);
