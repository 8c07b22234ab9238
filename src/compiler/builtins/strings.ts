// Declarations of the strings built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "concat", decl: T.fn([T.string, T.anyOf(T.array(T.string), T.set(T.string))], T.string) },
  { name: "contains", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "endswith", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "format_int", decl: T.fn([T.number, T.number], T.string) },
  { name: "indexof", decl: T.fn([T.string, T.string], T.number) },
  { name: "indexof_n", decl: T.fn([T.string, T.string], T.array(T.number)) },
  { name: "internal.template_string", decl: T.fn([T.array(T.any)], T.string) },
  { name: "lower", decl: T.fn([T.string], T.string) },
  { name: "replace", decl: T.fn([T.string, T.string, T.string], T.string) },
  { name: "split", decl: T.fn([T.string, T.string], T.array(T.string)) },
  { name: "sprintf", decl: T.fn([T.string, T.array(T.any)], T.string) },
  { name: "startswith", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "strings.any_prefix_match", decl: T.fn([T.anyOf(T.string, T.array(T.string), T.set(T.string)), T.anyOf(T.string, T.array(T.string), T.set(T.string))], T.boolean) },
  { name: "strings.any_suffix_match", decl: T.fn([T.anyOf(T.string, T.array(T.string), T.set(T.string)), T.anyOf(T.string, T.array(T.string), T.set(T.string))], T.boolean) },
  { name: "strings.count", decl: T.fn([T.string, T.string], T.number) },
  { name: "strings.render_template", decl: T.fn([T.string, T.object(T.string, T.any)], T.string) },
  { name: "strings.replace_n", decl: T.fn([T.object(T.string, T.string), T.string], T.string) },
  { name: "strings.reverse", decl: T.fn([T.string], T.string) },
  { name: "strings.split_n", decl: T.fn([T.string, T.string, T.number], T.array(T.string)) },
  { name: "substring", decl: T.fn([T.string, T.number, T.number], T.string) },
  { name: "trim", decl: T.fn([T.string, T.string], T.string) },
  { name: "trim_left", decl: T.fn([T.string, T.string], T.string) },
  { name: "trim_prefix", decl: T.fn([T.string, T.string], T.string) },
  { name: "trim_right", decl: T.fn([T.string, T.string], T.string) },
  { name: "trim_space", decl: T.fn([T.string], T.string) },
  { name: "trim_suffix", decl: T.fn([T.string, T.string], T.string) },
  { name: "upper", decl: T.fn([T.string], T.string) },
]);
