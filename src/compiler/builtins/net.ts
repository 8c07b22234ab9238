// Declarations of the net built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "net.cidr_contains", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "net.cidr_contains_matches", decl: T.fn([T.anyOf(T.string, T.array(T.anyOf(T.string, T.array(T.any))), T.object(T.string, T.anyOf(T.string, T.array(T.any))), T.set(T.anyOf(T.string, T.array(T.any)))), T.anyOf(T.string, T.array(T.anyOf(T.string, T.array(T.any))), T.object(T.string, T.anyOf(T.string, T.array(T.any))), T.set(T.anyOf(T.string, T.array(T.any))))], T.set(T.tuple([T.any, T.any]))) },
  { name: "net.cidr_expand", decl: T.fn([T.string], T.set(T.string)) },
  { name: "net.cidr_intersects", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "net.cidr_is_valid", decl: T.fn([T.string], T.boolean) },
  { name: "net.cidr_merge", decl: T.fn([T.anyOf(T.array(T.anyOf(T.string)), T.set(T.string))], T.set(T.string)) },
  { name: "net.cidr_overlap", decl: T.fn([T.string, T.string], T.boolean), deprecated: true },
  { name: "net.lookup_ip_addr", decl: T.fn([T.string], T.set(T.string)), nondeterministic: true },
]);
