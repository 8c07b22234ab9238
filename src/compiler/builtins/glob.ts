// Declarations of the glob built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "glob.match", decl: T.fn([T.string, T.anyOf(T.null, T.array(T.string)), T.string], T.boolean) },
  { name: "glob.quote_meta", decl: T.fn([T.string], T.string) },
]);
