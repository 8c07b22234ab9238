// Declarations of the uuid built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "uuid.parse", decl: T.fn([T.string], T.object(T.string, T.any)) },
  { name: "uuid.rfc4122", decl: T.fn([T.string], T.string), nondeterministic: true },
]);
