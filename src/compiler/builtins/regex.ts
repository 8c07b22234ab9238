// Declarations of the regex built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "re_match", decl: T.fn([T.string, T.string], T.boolean), deprecated: true },
  { name: "regex.find_all_string_submatch_n", decl: T.fn([T.string, T.string, T.number], T.array(T.array(T.string))) },
  { name: "regex.find_n", decl: T.fn([T.string, T.string, T.number], T.array(T.string)) },
  { name: "regex.globs_match", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "regex.is_valid", decl: T.fn([T.string], T.boolean) },
  { name: "regex.match", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "regex.replace", decl: T.fn([T.string, T.string, T.string], T.string) },
  { name: "regex.split", decl: T.fn([T.string, T.string], T.array(T.string)) },
  { name: "regex.template_match", decl: T.fn([T.string, T.string, T.string, T.string], T.boolean) },
]);
