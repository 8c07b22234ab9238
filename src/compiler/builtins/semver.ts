// Declarations of the semver built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "semver.compare", decl: T.fn([T.string, T.string], T.number) },
  { name: "semver.is_valid", decl: T.fn([T.any], T.boolean) },
]);
