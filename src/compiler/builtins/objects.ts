// Declarations of the objects built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "object.filter", decl: T.fn([T.object(T.any, T.any), T.anyOf(T.array(T.any), T.object(T.any, T.any), T.set(T.any))], T.object(T.any, T.any)) },
  { name: "object.get", decl: T.fn([T.object(T.any, T.any), T.any, T.any], T.any) },
  { name: "object.keys", decl: T.fn([T.object(T.any, T.any)], T.set(T.any)) },
  { name: "object.remove", decl: T.fn([T.object(T.any, T.any), T.anyOf(T.array(T.any), T.object(T.any, T.any), T.set(T.any))], T.object(T.any, T.any)) },
  { name: "object.subset", decl: T.fn([T.anyOf(T.array(T.any), T.object(T.any, T.any), T.set(T.any)), T.anyOf(T.array(T.any), T.object(T.any, T.any), T.set(T.any))], T.boolean) },
  { name: "object.union", decl: T.fn([T.object(T.any, T.any), T.object(T.any, T.any)], T.object(T.any, T.any)) },
  { name: "object.union_n", decl: T.fn([T.array(T.object(T.any, T.any))], T.object(T.any, T.any)) },
]);
