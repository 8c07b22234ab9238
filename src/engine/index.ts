// The engine facade: everything the floors above (server, plugins, bundle, health, CLI)
// and library users need from the language, compiler and evaluator, in one place. Upper
// floors import from src/engine (this file; syntax.ts when they only parse and print Rego;
// capabilities.ts for the declarations; store-engine.ts for the engine over the document
// store, which the library does not load), from src/value and from src/storage; never from
// lang, compiler or eval.

export * from './syntax.js';
export * from '../value/index.js';
export { compile, CompiledPolicy, RegoCompileError, type CompiledQuery, type CompileOptions } from '../compiler/index.js';
export { RegoEvalError } from '../eval/errors.js';
export { ndBuiltinCacheValue } from '../eval/builtins/nd-cache.js';
export { capabilitiesBuiltins } from '../compiler/builtins/index.js';
export { schemaToType, SchemaError } from '../compiler/schema-types.js';
export type { TypeDecl } from '../compiler/builtins/types.js';
export { QueryPlan, IOPending, type RawResult, type RunOptions } from '../eval/query.js';
export { BufferTracer, type Tracer, type ExplainMode } from '../eval/explain.js';
export { CoverageTracer, coverageReport, thresholdMessage, type CoverageReport } from '../eval/trace/coverage.js';
export type { TraceEvent } from '../eval/trace/events.js';
export { Regolith, PreparedQuery, type RegolithOptions, type EvaluateOptions, type QueryResult, type ExpressionResult, type PartialQueryOptions } from './regolith.js';
export { PartialQueries, partialPlan } from './partial.js';
export { PartialError, UnknownError } from '../partial/index.js';
export { EngineError, toEngineError, type AstError, type EngineErrorKind, type ErrorLocation } from './errors.js';
export { planQuery, PlanCache } from './queries.js';
export { CustomBuiltins, CustomBuiltinError, HaltError, type CustomBuiltin, type CustomBuiltinContext, type CustomBuiltinFn, type TypeSpec } from './custom-builtins.js';
export { runPlan } from './run.js';
export { planQueryInPackage, resolveInPackage, packageRuleNames, type PackageContext } from './package-query.js';
export { queryDependencies, dependencyText, dependencyJSON, compareDependencyRefs, type Dependencies, type DependencyRef } from './dependencies.js';
export type {
  Engine,
  EvalOptions,
  EvalResult,
  EngineQueryResult,
  CompileRequest,
  CompileResult,
  PolicyModule,
  WriteResult,
  PolicyWriteOptions,
  ModuleInstall,
  ModuleChanges,
  DecisionEvent,
  LoggedDecision,
} from './types.js';
