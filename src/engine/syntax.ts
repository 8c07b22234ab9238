// The syntax part of the engine facade: parsing, printing and formatting Rego, without
// loading the compiler, the evaluator or any built-in (so `regolith parse` and `fmt`
// start fast).

export * from '../lang/index.js';
