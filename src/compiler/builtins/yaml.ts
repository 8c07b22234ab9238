// Declarations of the yaml built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "yaml.is_valid", decl: T.fn([T.string], T.boolean) },
  { name: "yaml.marshal", decl: T.fn([T.any], T.string) },
  { name: "yaml.unmarshal", decl: T.fn([T.string], T.any) },
]);
