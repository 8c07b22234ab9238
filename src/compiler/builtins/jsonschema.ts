// Declarations of the jsonschema built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "json.match_schema", decl: T.fn([T.anyOf(T.string, T.object(T.any, T.any)), T.anyOf(T.string, T.object(T.any, T.any))], T.tuple([T.boolean, T.array(T.record([{ key: "desc", value: T.string }, { key: "error", value: T.string }, { key: "field", value: T.string }, { key: "type", value: T.string }]))])) },
  { name: "json.verify_schema", decl: T.fn([T.anyOf(T.string, T.object(T.any, T.any))], T.tuple([T.boolean, T.anyOf(T.null, T.string)])) },
]);
