// Declarations of the time built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "time.add_date", decl: T.fn([T.number, T.number, T.number, T.number], T.number) },
  { name: "time.clock", decl: T.fn([T.anyOf(T.number, T.tuple([T.number, T.string]))], T.tuple([T.number, T.number, T.number])) },
  { name: "time.date", decl: T.fn([T.anyOf(T.number, T.tuple([T.number, T.string]))], T.tuple([T.number, T.number, T.number])) },
  { name: "time.diff", decl: T.fn([T.anyOf(T.number, T.tuple([T.number, T.string])), T.anyOf(T.number, T.tuple([T.number, T.string]))], T.tuple([T.number, T.number, T.number, T.number, T.number, T.number])) },
  { name: "time.format", decl: T.fn([T.anyOf(T.number, T.tuple([T.number, T.string]), T.tuple([T.number, T.string, T.string]))], T.string) },
  { name: "time.now_ns", decl: { type: 'function', result: T.number }, nondeterministic: true },
  { name: "time.parse_duration_ns", decl: T.fn([T.string], T.number) },
  { name: "time.parse_ns", decl: T.fn([T.string, T.string], T.number) },
  { name: "time.parse_rfc3339_ns", decl: T.fn([T.string], T.number) },
  { name: "time.weekday", decl: T.fn([T.anyOf(T.number, T.tuple([T.number, T.string]))], T.string) },
]);
