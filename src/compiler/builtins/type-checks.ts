// Declarations of the type-check built-ins (is_string, ...) (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "is_array", decl: T.fn([T.any], T.boolean) },
  { name: "is_boolean", decl: T.fn([T.any], T.boolean) },
  { name: "is_null", decl: T.fn([T.any], T.boolean) },
  { name: "is_number", decl: T.fn([T.any], T.boolean) },
  { name: "is_object", decl: T.fn([T.any], T.boolean) },
  { name: "is_set", decl: T.fn([T.any], T.boolean) },
  { name: "is_string", decl: T.fn([T.any], T.boolean) },
  { name: "type_name", decl: T.fn([T.any], T.string) },
]);
