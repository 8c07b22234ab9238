// Declarations of the graphql built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "graphql.is_valid", decl: T.fn([T.anyOf(T.string, T.object(T.any, T.any)), T.anyOf(T.string, T.object(T.any, T.any))], T.boolean) },
  { name: "graphql.parse", decl: T.fn([T.anyOf(T.string, T.object(T.any, T.any)), T.anyOf(T.string, T.object(T.any, T.any))], T.tuple([T.object(T.any, T.any), T.object(T.any, T.any)])) },
  { name: "graphql.parse_and_verify", decl: T.fn([T.anyOf(T.string, T.object(T.any, T.any)), T.anyOf(T.string, T.object(T.any, T.any))], T.tuple([T.boolean, T.object(T.any, T.any), T.object(T.any, T.any)])) },
  { name: "graphql.parse_query", decl: T.fn([T.string], T.object(T.any, T.any)) },
  { name: "graphql.parse_schema", decl: T.fn([T.string], T.object(T.any, T.any)) },
  { name: "graphql.schema_is_valid", decl: T.fn([T.anyOf(T.string, T.object(T.any, T.any))], T.boolean) },
]);
