// Declarations of the aws built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "providers.aws.sign_req", decl: T.fn([T.object(T.string, T.any), T.object(T.string, T.any), T.number], T.object(T.any, T.any)) },
]);
