// Declarations of the encoding built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "base64.decode", decl: T.fn([T.string], T.string) },
  { name: "base64.encode", decl: T.fn([T.string], T.string) },
  { name: "base64.is_valid", decl: T.fn([T.string], T.boolean) },
  { name: "base64url.decode", decl: T.fn([T.string], T.string) },
  { name: "base64url.encode", decl: T.fn([T.string], T.string) },
  { name: "base64url.encode_no_pad", decl: T.fn([T.string], T.string) },
  { name: "hex.decode", decl: T.fn([T.string], T.string) },
  { name: "hex.encode", decl: T.fn([T.string], T.string) },
  { name: "uri.is_valid", decl: T.fn([T.string], T.boolean) },
  { name: "uri.parse", decl: T.fn([T.string], T.object(T.string, T.string)) },
  { name: "urlquery.decode", decl: T.fn([T.string], T.string) },
  { name: "urlquery.decode_object", decl: T.fn([T.string], T.object(T.string, T.array(T.string))) },
  { name: "urlquery.encode", decl: T.fn([T.string], T.string) },
  { name: "urlquery.encode_object", decl: T.fn([T.object(T.string, T.anyOf(T.string, T.array(T.string), T.set(T.string)))], T.string) },
]);
