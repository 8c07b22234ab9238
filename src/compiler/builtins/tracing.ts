// Declarations of the tracing built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "internal.print", decl: { type: 'function', args: [T.array(T.set(T.any))] } },
  { name: "print", decl: T.variadic(T.any) },
  { name: "trace", decl: T.fn([T.string], T.boolean) },
]);
