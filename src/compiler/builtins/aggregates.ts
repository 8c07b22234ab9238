// Declarations of the aggregates built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "all", decl: T.fn([T.anyOf(T.array(T.any), T.set(T.any))], T.boolean), deprecated: true },
  { name: "any", decl: T.fn([T.anyOf(T.array(T.any), T.set(T.any))], T.boolean), deprecated: true },
  { name: "count", decl: T.fn([T.anyOf(T.string, T.array(T.any), T.object(T.any, T.any), T.set(T.any))], T.number) },
  { name: "max", decl: T.fn([T.anyOf(T.array(T.any), T.set(T.any))], T.any) },
  { name: "min", decl: T.fn([T.anyOf(T.array(T.any), T.set(T.any))], T.any) },
  { name: "product", decl: T.fn([T.anyOf(T.array(T.number), T.set(T.number))], T.number) },
  { name: "sort", decl: T.fn([T.anyOf(T.array(T.any), T.set(T.any))], T.array(T.any)) },
  { name: "sum", decl: T.fn([T.anyOf(T.array(T.number), T.set(T.number))], T.number) },
]);
