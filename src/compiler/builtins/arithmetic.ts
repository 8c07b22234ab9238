// Declarations of the arithmetic built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "abs", decl: T.fn([T.number], T.number) },
  { name: "ceil", decl: T.fn([T.number], T.number) },
  { name: "div", decl: T.fn([T.number, T.number], T.number), infix: "/" },
  { name: "floor", decl: T.fn([T.number], T.number) },
  { name: "minus", decl: T.fn([T.anyOf(T.number, T.set(T.any)), T.anyOf(T.number, T.set(T.any))], T.anyOf(T.number, T.set(T.any))), infix: "-" },
  { name: "mul", decl: T.fn([T.number, T.number], T.number), infix: "*" },
  { name: "numbers.range", decl: T.fn([T.number, T.number], T.array(T.number)) },
  { name: "numbers.range_step", decl: T.fn([T.number, T.number, T.number], T.array(T.number)) },
  { name: "plus", decl: T.fn([T.number, T.number], T.number), infix: "+" },
  { name: "rand.intn", decl: T.fn([T.string, T.number], T.number), nondeterministic: true },
  { name: "rem", decl: T.fn([T.number, T.number], T.number), infix: "%" },
  { name: "round", decl: T.fn([T.number], T.number) },
]);
