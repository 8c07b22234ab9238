// Declarations of the json built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "json.filter", decl: T.fn([T.object(T.any, T.any), T.anyOf(T.array(T.anyOf(T.string, T.array(T.any))), T.set(T.anyOf(T.string, T.array(T.any))))], T.object(T.any, T.any)) },
  { name: "json.is_valid", decl: T.fn([T.string], T.boolean) },
  { name: "json.marshal", decl: T.fn([T.any], T.string) },
  { name: "json.marshal_with_options", decl: T.fn([T.any, T.record([{ key: "indent", value: T.string }, { key: "prefix", value: T.string }, { key: "pretty", value: T.boolean }], { key: T.string, value: T.any })], T.string) },
  { name: "json.patch", decl: T.fn([T.any, T.array(T.record([{ key: "op", value: T.string }, { key: "path", value: T.any }], { key: T.any, value: T.any }))], T.any) },
  { name: "json.remove", decl: T.fn([T.object(T.any, T.any), T.anyOf(T.array(T.anyOf(T.string, T.array(T.any))), T.set(T.anyOf(T.string, T.array(T.any))))], T.object(T.any, T.any)) },
  { name: "json.unmarshal", decl: T.fn([T.string], T.any) },
]);
