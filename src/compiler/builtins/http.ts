// Declarations of the http built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "http.send", decl: T.fn([T.object(T.string, T.any)], T.object(T.any, T.any)), nondeterministic: true },
]);
