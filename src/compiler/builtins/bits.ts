// Declarations of the bits built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "bits.and", decl: T.fn([T.number, T.number], T.number) },
  { name: "bits.lsh", decl: T.fn([T.number, T.number], T.number) },
  { name: "bits.negate", decl: T.fn([T.number], T.number) },
  { name: "bits.or", decl: T.fn([T.number, T.number], T.number) },
  { name: "bits.rsh", decl: T.fn([T.number, T.number], T.number) },
  { name: "bits.xor", decl: T.fn([T.number, T.number], T.number) },
]);
