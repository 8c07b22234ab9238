// Declarations of the jwt built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "io.jwt.decode", decl: T.fn([T.string], T.tuple([T.object(T.any, T.any), T.object(T.any, T.any), T.string])) },
  { name: "io.jwt.decode_verify", decl: T.fn([T.string, T.object(T.string, T.any)], T.tuple([T.boolean, T.object(T.any, T.any), T.object(T.any, T.any)])), nondeterministic: true },
  { name: "io.jwt.encode_sign", decl: T.fn([T.object(T.string, T.any), T.object(T.string, T.any), T.object(T.string, T.any)], T.string), nondeterministic: true },
  { name: "io.jwt.encode_sign_raw", decl: T.fn([T.string, T.string, T.string], T.string), nondeterministic: true },
  { name: "io.jwt.verify_eddsa", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_es256", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_es384", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_es512", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_hs256", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_hs384", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_hs512", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_ps256", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_ps384", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_ps512", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_rs256", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_rs384", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "io.jwt.verify_rs512", decl: T.fn([T.string, T.string], T.boolean) },
]);
