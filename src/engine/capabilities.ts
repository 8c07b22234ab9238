// The capabilities part of the engine facade: the built-in declarations (what
// `regolith capabilities` prints), without loading the evaluator or any implementation.

export { capabilitiesBuiltins, allDeclarations, type BuiltinDecl } from '../compiler/builtins/index.js';
