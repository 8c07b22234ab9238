// `regolith eval`: evaluates a query against policy and data files (-d), bundles (-b) and
// an input document (-i / --stdin-input), printing the result in OPA's formats. Errors of
// any stage are printed in OPA's shape (in the JSON document for --format json) with exit
// code 2; --fail / --fail-defined turn an undefined / defined result into exit code 1.

import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { BufferTracer, compile, CoverageTracer, CustomBuiltins, isPlainObject, RObject, RSet, coverageReport, parseModule, parseQuery, partialPlan, planQueryInPackage, toEngineError, type ExplainMode, type PackageContext, type RegoEvalError, type RegoVersion, type Tracer, type TraceEvent, type Value } from '../../engine/index.js';
import { Profiler, profileSortOrder, type ExprStats } from '../../engine/profiler.js';
import { parseDataJSON } from '../../bundle/load.js';
import { parseDuration } from '../duration.js';
import { EVAL_FORMATS, renderEval, type EvalFormat, type EvalOutput } from '../eval-output.js';
import { CLIError } from '../io.js';
import { loadPaths, LoadError } from '../../runtime/load-paths.js';
import { buildPolicySet, CommandErrors, toErrorDetails, type PolicySet } from '../../runtime/policy-set.js';
import { prepareQuery, runPrepared, type PreparedRun } from '../../runtime/query.js';
import { aggregateMetrics, aggregateProfiles } from '../eval-stats.js';
import { command, opt, type OptionsOf } from '../command.js';
import { InstrumentTracer } from '../instrument.js';
import { withExprVars } from '../var-values.js';
import { builtins, bundlePaths, capabilities, data, explain, format, ignore, input, refused, schema, stdinInput, strict, v0Compatible, v1Compatible } from '../flags.js';
import { loadBuiltinModules } from '../../runtime/custom-builtins.js';
import { capabilityOptions } from '../capabilities-flag.js';
import { schemaOptions } from '../schema-flag.js';
import { collect, collectList } from '../options.js';

const evalCommand = command({
  name: 'eval',
  description: 'Evaluate a Rego query',
  args: [['[query]', 'the Rego query to evaluate (e.g. data.authz.allow)']],
  flags: [
    data('set policy or data file(s); repeatable; "prefix:path" loads under data.prefix'),
    bundlePaths(),
    input(),
    stdinInput(),
    opt('--input-format <format>', "set the input document's format (json, yaml, tombstone: a native crash report protobuf); default: JSON or YAML by its contents"),
    opt('--stdin', 'read query from stdin'),
    format(EVAL_FORMATS, 'json'),
    opt('--fail', 'exits with non-zero exit code on undefined/empty result and errors'),
    opt('--fail-defined', 'exits with non-zero exit code on defined/non-empty result and errors'),
    explain('notes, fails, full, debug'),
    opt('--metrics', 'report query performance metrics'),
    opt('-p, --partial', 'perform partial evaluation: print the conditions on the unknowns under which the query holds'),
    opt('-u, --unknowns <term>', 'set paths to treat as unknown during partial evaluation; repeatable (default: input)', collectList, [] as string[]),
    v0Compatible(),
    v1Compatible(),
    opt('--strict-builtin-errors', 'treat the first built-in function error encountered as fatal'),
    opt('--timeout <duration>', 'set eval timeout (e.g. 5s, 250ms; 0 means no timeout)', '0'),
    ignore(),
    opt('--pretty-limit <n>', 'set limit after which pretty output gets truncated', '80'),
    builtins(),
    capabilities(),
    schema(),
    // OPA's other eval flags, in the order of `opa eval --help`.
    opt('--count <n>', 'number of times to repeat each benchmark', '1'),
    opt('--coverage', 'report coverage'),
    opt('--disable-inlining <path>', 'set paths of documents to exclude from inlining (with --partial); repeatable', collect, [] as string[]),
    opt('--fail-non-empty', 'exits with non-zero exit code on non-empty result and errors (as opa exec)'),
    opt('--import <import>', 'set query import(s); repeatable', collect, [] as string[]),
    opt('--instrument', 'enable query instrumentation metrics (implies --metrics)'),
    opt('--nondeterministic-builtins', 'evaluate nondeterministic builtins (if all arguments are known) during partial eval'),
    opt('--nondeterminstic-builtins', 'the same, as OPA spells it'),
    opt('--package <package>', 'set query package'),
    opt('--profile', 'perform expression profiling'),
    opt('--show-builtin-errors', 'collect and return all encountered built-in errors, built in errors are not fatal'),
    opt('--profile-limit <n>', 'set number of profiling results to show (default 10; implies --profile)'),
    opt('--profile-sort <criteria>', 'set sort order of expression profiler results. Accepts: total_time_ns, num_eval, num_redo, num_gen_expr, file, line; repeatable (implies --profile)', collect, [] as string[]),
    strict(),
    opt('--disable-indexing', 'accepted for OPA\'s scripts: no effect, rule indexing never changes results'),
    opt('--disable-early-exit', 'accepted for OPA\'s scripts: no effect, early exit never changes results'),
    opt('--read-ast-values-from-store', 'accepted for OPA\'s scripts: no effect'),
    refused('-t, --target <target>', 'set the runtime to exercise (only rego)', (v) =>
      v === 'rego' ? undefined
      : v === 'wasm' || v === 'plan' ? `--target ${String(v)} is not supported: regolith evaluates Rego directly (no Wasm or plan compilation); drop -t or use -t rego`
      : `invalid argument "${String(v)}" for "-t, --target" flag: must be one of {rego,wasm}`),
    refused('-O, --optimize <level>', 'set optimization level (only 0)', (v) =>
      v === '0' ? undefined : '-O (optimized bundles) is not supported: regolith evaluates the modules as loaded; drop -O (results are the same)'),
    refused('-e, --entrypoint <path>', 'set slash separated entrypoint path (only with -O, not supported)', () =>
      '--entrypoint only applies to -O optimization, which regolith does not support; drop it (and -O)'),
    refused('--shallow-inlining', 'disable inlining of rules that depend on unknowns (not supported)', () =>
      '--shallow-inlining is not supported; use --disable-inlining <path> to keep chosen rules out of the residual queries'),
    opt('--var-values', 'show local variable values in pretty trace output'),
    opt('--optimize-store-for-read-speed', "optimize default in-memory store for read speed (accepted: regolith eval reads data without OPA's store)"),
  ],
  examples: [
    "regolith eval -d policy.rego -d data.json -i input.json 'data.httpapi.authz.allow'",
    "regolith eval -b bundle.tar.gz --format raw 'data.authz.reason'",
    "echo '{\"user\":\"alice\"}' | regolith eval -I -d policies/ --fail 'data.authz.allow'",
    "regolith eval --format pretty 'x := [1, 2, 3][_]'",
    "regolith eval -d filters.rego -i user.json --partial --unknowns input.rows 'data.filters.allow == true'",
    "regolith eval -d policies/crash-triage --input-format tombstone -i crash.pb 'data.regolith.crash_triage.decision'",
  ],
});

type EvalFlags = OptionsOf<typeof evalCommand>;

const EXPLAIN_MODES = ['notes', 'fails', 'full', 'debug'];

function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    throw new CLIError(`reading stdin: ${(e as Error).message}`);
  }
}

const INPUT_FORMATS = ['json', 'yaml', 'tombstone'];

/** An input document from JSON or YAML text (numbers kept exact for JSON); `format` forces one. */
export function parseInputText(text: string, source: string, format?: string): Value {
  const failed = (e: unknown) => new LoadError(`unable to parse input from ${source}: ${(e as Error).message.split('\n')[0]}`);
  if (format !== 'yaml') {
    try {
      return parseDataJSON(text, source);
    } catch (e) {
      if (format === 'json') throw failed(e);
    }
  }
  try {
    return (yaml.load(text, { schema: yaml.CORE_SCHEMA }) ?? null) as Value;
  } catch (e) {
    throw failed(e);
  }
}

function readInputFile(path: string, format?: string): Value {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new LoadError(`open ${path}: no such file or directory`);
  }
  return parseInputText(text, path, format);
}

/** A native crash report (Tombstone protobuf) as the input document; the decoder loads only here. */
async function readTombstoneInput(path: string | undefined): Promise<Value> {
  let buf: Buffer;
  try {
    buf = readFileSync(path ?? 0);
  } catch {
    throw new LoadError(path === undefined ? 'reading stdin: failed' : `open ${path}: no such file or directory`);
  }
  const { decodeTombstone, TombstoneError } = await import('../../integrations/crash-reports/decode.js');
  try {
    return decodeTombstone(buf) as Value;
  } catch (e) {
    if (e instanceof TombstoneError) throw new LoadError(`unable to parse input from ${path ?? 'stdin'}: ${e.message}`);
    throw e;
  }
}

function checkFlags(f: EvalFlags): { format: EvalFormat; timeoutMs: number; prettyLimit: number } {
  if (!(EVAL_FORMATS as readonly string[]).includes(f.format)) {
    throw new CLIError(`invalid argument "${f.format}" for "-f, --format" flag: must be one of {${EVAL_FORMATS.join(', ')}}`);
  }
  if (f.explain !== undefined && !EXPLAIN_MODES.includes(f.explain)) {
    throw new CLIError(`invalid argument "${f.explain}" for "--explain" flag: must be one of {${EXPLAIN_MODES.join(', ')}}`);
  }
  if (f.format === 'source' && !f.partial) throw new CLIError('invalid argument "source" for "-f, --format" flag: source is only for --partial');
  if (f.fail && f.failDefined) throw new CLIError('specify --fail or --fail-defined but not both');
  if (f.input && f.stdinInput) throw new CLIError('specify --input or --stdin-input but not both');
  if (f.stdin && f.stdinInput) throw new CLIError('specify --stdin or --stdin-input but not both');
  if (f.inputFormat !== undefined && !INPUT_FORMATS.includes(f.inputFormat)) {
    throw new CLIError(`invalid argument "${f.inputFormat}" for "--input-format" flag: must be one of {${INPUT_FORMATS.join(', ')}}`);
  }
  const timeoutMs = parseDuration(f.timeout);
  if (timeoutMs === undefined) throw new CLIError(`invalid argument "${f.timeout}" for "--timeout" flag: time: invalid duration "${f.timeout}"`);
  const prettyLimit = Number(f.prettyLimit);
  if (!Number.isInteger(prettyLimit)) throw new CLIError(`invalid argument "${f.prettyLimit}" for "--pretty-limit" flag`);
  return { format: f.format as EvalFormat, timeoutMs, prettyLimit };
}

function partialOrThrow<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw toEngineError(e);
  }
}

/** Several tracers fed the same events (--explain, --coverage and --profile together). */
function fanOut(tracers: (Tracer | undefined)[]): Tracer | undefined {
  const ts = tracers.filter((t): t is Tracer => t !== undefined);
  if (ts.length <= 1) return ts[0];
  return {
    note: (m: string) => ts.forEach((t) => t.note(m)),
    event: (e: TraceEvent) => ts.forEach((t) => t.event?.(e)),
  };
}

/** --package and --import: the package and imports the query is read in, as OPA's rego.Package/rego.Imports. */
/** --package and --import: the package and imports the query is read in (eval and bench). */
export function queryContext(f: { package?: string; import: string[] }, regoVersion: RegoVersion): PackageContext | undefined {
  if (f.package === undefined && f.import.length === 0) return undefined;
  const text = [`package ${f.package ?? '__regolith_query'}`, ...f.import.map((i) => `import ${i}`)].join('\n');
  try {
    const m = parseModule(text, { filename: '', regoVersion });
    const path = f.package === undefined ? [] : m.package.path.slice(1).map((t) => String((t as { value: unknown }).value));
    return { path, imports: m.imports };
  } catch (e) {
    throw new CommandErrors(toErrorDetails(e));
  }
}

export function prepare(set: PolicySet, query: string, regoVersion: RegoVersion, ctx: PackageContext | undefined): PreparedRun {
  if (!ctx) return prepareQuery(set, query, regoVersion);
  const metrics: Record<string, number> = {};
  try {
    return { plan: planQueryInPackage(set.regolith.compile(), parseQuery(query, { regoVersion }), ctx, regoVersion, metrics), metrics };
  } catch (e) {
    throw new CommandErrors(toErrorDetails(e));
  }
}

/** Runs one of eval's set-up steps; what it fails with exits 2 with its message, as OPA's eval. */
async function setupStep<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    if (e instanceof LoadError || e instanceof CLIError) throw new CLIError(e.message, 2);
    throw e;
  }
}

interface Wanted {
  metrics: boolean;
  profile: boolean;
  profileLimit: number;
  profileSort: string[];
  count: number;
}

async function evaluate(query: string, f: EvalFlags, timeoutMs: number, w: Wanted): Promise<EvalOutput> {
  const regoVersion: RegoVersion = f.v0Compatible ? 'v0' : 'v1';
  let metrics: Record<string, number> | undefined = w.metrics ? {} : undefined;
  const out: EvalOutput = { metrics };
  // As OPA's setupEval: the input and the schemas are read before any policy or data, and
  // failing to read them stops the command (the message on stderr, exit 2) instead of
  // becoming an evaluation error in the output.
  const input = await setupStep(() =>
    f.inputFormat === 'tombstone' && (f.input || f.stdinInput) ? readTombstoneInput(f.input)
    : f.input ? readInputFile(f.input, f.inputFormat) : f.stdinInput ? parseInputText(readStdin(), 'stdin', f.inputFormat) : undefined,
  );
  const schemaOpts = await setupStep(() => schemaOptions(f.schema));
  try {
    const t0 = process.hrtime.bigint();
    const loaded = await loadPaths({ paths: f.data, bundles: f.bundle, ignore: f.ignore, regoVersion });
    const loadNs = Number(process.hrtime.bigint() - t0);
    if (metrics) metrics.timer_rego_load_files_ns = loadNs;
    const t1 = process.hrtime.bigint();
    const customBuiltins = await loadBuiltinModules(f.builtins);
    const caps = capabilityOptions(f.capabilities);
    const set = buildPolicySet(loaded, { regoVersion, strictBuiltinErrors: f.strictBuiltinErrors, builtins: customBuiltins, ...caps, ...schemaOpts });
    // Strict mode's extra checks (unused imports, vars and arguments, ...) over the same modules.
    if (f.strict) {
      try {
        compile([...set.modules.values()], { strict: true, builtins: customBuiltins.length ? new CustomBuiltins(customBuiltins) : undefined, ...caps, ...schemaOpts });
      } catch (e) {
        throw new CommandErrors(toErrorDetails(e));
      }
    }
    const compileNs = Number(process.hrtime.bigint() - t1);
    if (metrics) metrics.timer_rego_module_compile_ns = compileNs;
    const ctx = queryContext(f, regoVersion);
    const explainer = f.explain ? new BufferTracer(f.explain as ExplainMode) : undefined;
    const coverage = f.coverage ? new CoverageTracer() : undefined;
    if (f.partial) {
      const prepared = prepare(set, query, regoVersion, ctx);
      const t2 = process.hrtime.bigint();
      out.partial = partialOrThrow(() => partialPlan(prepared.plan, {
        tracer: fanOut([explainer, coverage]),
        input,
        data: loaded.data,
        unknowns: f.unknowns.length ? f.unknowns : ['input'],
        disableInlining: f.disableInlining,
        nondeterministicBuiltins: f.nondeterministicBuiltins || f.nondeterminsticBuiltins,
        strictBuiltinErrors: f.strictBuiltinErrors,
        deadline: timeoutMs ? Date.now() + timeoutMs : undefined,
      }));
      if (metrics) Object.assign(metrics, prepared.metrics, { timer_rego_partial_eval_ns: Number(process.hrtime.bigint() - t2) });
      if (explainer) out.explanation = { lines: explainer.lines(), events: explainer.json() };
      if (coverage) out.coverage = coverageReport(coverage.hits, set.modules);
      return out;
    }
    // --count: the query is prepared and run that many times; the first run's results are shown.
    const runs: Record<string, number>[] = [];
    const profiles: ExprStats[][] = [];
    for (let i = 0; i < w.count; i++) {
      const prepared = prepare(set, query, regoVersion, ctx);
      const profiler = w.profile ? new Profiler() : undefined;
      const instrument = f.instrument ? new InstrumentTracer() : undefined;
      const tracer = fanOut(i === 0 ? [explainer, coverage, profiler, instrument] : [coverage, profiler, instrument]);
      const builtinErrors: RegoEvalError[] | undefined = f.showBuiltinErrors && i === 0 ? [] : undefined;
      const results = await runPrepared(prepared, { input, data: loaded.data, strict: f.strictBuiltinErrors, timeoutMs, tracer, builtinErrors });
      if (i === 0) out.results = results;
      // --show-builtin-errors: the errors of the calls made undefined, beside the results (OPA's BuiltinErrorList).
      if (builtinErrors?.length) {
        out.errors = toErrorDetails(builtinErrors.length === 1 ? builtinErrors[0] : new CommandErrors(builtinErrors.flatMap((e) => toErrorDetails(e))));
        out.builtinErrorCount = out.errors.length;
      }
      const measured = instrument?.metrics();
      runs.push({ timer_rego_load_files_ns: loadNs, timer_rego_module_compile_ns: compileNs, ...prepared.metrics, ...measured?.timers });
      if (i === 0 && measured) out.histograms = measured.histograms;
      if (profiler) profiles.push(profiler.report(w.profileLimit, w.profileSort));
    }
    if (metrics) Object.assign(metrics, runs[0]);
    if (w.count > 1) {
      out.metrics = metrics = undefined;
      out.histograms = undefined;
      if (w.metrics) out.aggregatedMetrics = aggregateMetrics(runs);
      if (w.profile) out.aggregatedProfile = aggregateProfiles(profiles);
    } else if (w.profile) {
      out.profile = profiles[0];
    }
    if (explainer) out.explanation = { lines: f.varValues ? withExprVars(explainer.lines(), explainer.events) : explainer.lines(), events: explainer.json() };
    if (coverage) out.coverage = coverageReport(coverage.hits, set.modules);
  } catch (e) {
    out.errors = toErrorDetails(e);
  }
  return out;
}

/** OPA's validateEvalParams: --profile-sort/--profile-limit imply --profile, which (and --instrument) implies --metrics. */
function wanted(f: EvalFlags): Wanted {
  const count = Number(f.count);
  if (!Number.isInteger(count) || count < 1) throw new CLIError(`invalid argument "${f.count}" for "--count" flag: must be a positive integer`);
  let profileLimit = 10;
  if (f.profileLimit !== undefined) {
    profileLimit = Number(f.profileLimit);
    if (!Number.isInteger(profileLimit)) throw new CLIError(`invalid argument "${f.profileLimit}" for "--profile-limit" flag: strconv.ParseInt: parsing "${f.profileLimit}": invalid syntax`);
  }
  const profile = !!f.profile || f.profileLimit !== undefined || f.profileSort.length > 0;
  const named = f.profileSort.flatMap((c) => c.split(',')).filter((c) => c !== '');
  return { count, profile, profileLimit, profileSort: named.length ? profileSortOrder(named) : profileSortOrder([]), metrics: !!f.metrics || profile || !!f.instrument };
}

export default evalCommand.action(async (queryArg, f) => {
  const { format, timeoutMs, prettyLimit } = checkFlags(f);
  let query = queryArg;
  if (f.stdin) {
    if (query !== undefined) throw new CLIError('specify query argument or --stdin but not both');
    query = readStdin();
  }
  if (query === undefined || query.trim() === '') throw new CLIError('specify query argument or --stdin');
  if (f.failNonEmpty && (f.fail || f.failDefined)) throw new CLIError(`specify --fail-non-empty or --${f.fail ? 'fail' : 'fail-defined'} but not both`);
  if (f.showBuiltinErrors && f.strictBuiltinErrors) {
    throw new CLIError('cannot use --show-builtin-errors with --strict-builtin-errors, --strict-builtin-errors will return the first built-in error encountered immediately');
  }
  const out = await evaluate(query, f, timeoutMs, wanted(f));
  const printed = renderEval(out, format, prettyLimit);
  process.stdout.write(printed.stdout);
  process.stderr.write(printed.stderr);
  // Only built-in errors (--show-builtin-errors) do not make the command fail, as in OPA.
  // An error is exit code 2, as opa eval's (1 is left to --fail and its kin).
  if (out.errors?.length && out.errors.length !== out.builtinErrorCount) throw new CLIError('', 2);
  const defined = f.partial ? (out.partial?.queries.length ?? 0) > 0 : (out.results?.length ?? 0) > 0;
  if ((f.fail && !defined) || (f.failDefined && defined)) throw new CLIError('');
  if (f.failNonEmpty && !f.partial && out.results?.some((r) => r.expressions.some((e) => !isEmpty(e.value)))) throw new CLIError('');
});

/** opa exec's notion of an empty result: undefined, or an empty array, object or set. */
function isEmpty(v: Value): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (v instanceof RSet || v instanceof RObject) return v.size === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}
