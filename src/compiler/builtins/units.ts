// Declarations of the units built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "units.parse", decl: T.fn([T.string], T.number) },
  { name: "units.parse_bytes", decl: T.fn([T.string], T.number) },
]);
