// Declarations of the conversions built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "cast_array", decl: T.fn([T.any], T.array(T.any)), deprecated: true },
  { name: "cast_boolean", decl: T.fn([T.any], T.boolean), deprecated: true },
  { name: "cast_null", decl: T.fn([T.any], T.null), deprecated: true },
  { name: "cast_object", decl: T.fn([T.any], T.object(T.any, T.any)), deprecated: true },
  { name: "cast_set", decl: T.fn([T.any], T.set(T.any)), deprecated: true },
  { name: "cast_string", decl: T.fn([T.any], T.string), deprecated: true },
  { name: "to_number", decl: T.fn([T.anyOf(T.null, T.boolean, T.number, T.string)], T.number) },
]);
