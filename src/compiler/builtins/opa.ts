// Declarations of the opa built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "opa.runtime", decl: { type: 'function', result: T.object(T.string, T.any) }, nondeterministic: true },
]);
