// Regolith's public library API. Node programs import this module; the server, the
// CLI and the plugins also talk to the engine only through what is exported here.

export * from './value/index.js';
export * from './lang/index.js';
export { Regolith, PreparedQuery, IOPending, type RegolithOptions, type EvaluateOptions, type QueryResult, type ExpressionResult } from './eval/api.js';
export { compile, CompiledPolicy, RegoCompileError, type CompiledQuery } from './compiler/index.js';
export { RegoEvalError } from './eval/errors.js';
export { ndBuiltinCacheValue } from './eval/builtins/nd-cache.js';
export { QueryPlan, type RawResult, type RunOptions } from './eval/query.js';
export { BufferTracer, type Tracer, type ExplainMode } from './eval/explain.js';
export { CoverageTracer, coverageReport, thresholdMessage, type CoverageReport } from './eval/trace/coverage.js';
export type { TraceEvent } from './eval/trace/events.js';
