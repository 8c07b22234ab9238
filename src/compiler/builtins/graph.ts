// Declarations of the graph built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "graph.reachable", decl: T.fn([T.object(T.any, T.anyOf(T.array(T.any), T.set(T.any))), T.anyOf(T.array(T.any), T.set(T.any))], T.set(T.any)) },
  { name: "graph.reachable_paths", decl: T.fn([T.object(T.any, T.anyOf(T.array(T.any), T.set(T.any))), T.anyOf(T.array(T.any), T.set(T.any))], T.set(T.array(T.any))) },
  { name: "walk", decl: T.fn([T.any], T.tuple([T.array(T.any), T.any])), relation: true },
]);
