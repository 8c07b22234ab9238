// `regolith eval`: evaluates a query against policy and data files (-d), bundles (-b) and
// an input document (-i / --stdin-input), printing the result in OPA's formats. Errors of
// any stage are printed in OPA's shape (in the JSON document for --format json) with exit
// code 1; --fail / --fail-defined turn an undefined / defined result into exit code 1.

import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { BufferTracer, partialPlan, toEngineError, type ExplainMode, type RegoVersion, type Value } from '../../engine/index.js';
import { parseDataJSON } from '../../bundle/load.js';
import { parseDuration } from '../duration.js';
import { EVAL_FORMATS, renderEval, type EvalFormat, type EvalOutput } from '../eval-output.js';
import { CLIError } from '../io.js';
import { loadPaths, LoadError } from '../../runtime/load-paths.js';
import { buildPolicySet, toErrorDetails } from '../../runtime/policy-set.js';
import { prepareQuery, runPrepared } from '../../runtime/query.js';
import { command, opt, type OptionsOf } from '../command.js';
import { builtins, bundlePaths, data, explain, format, ignore, input, stdinInput, v0Compatible, v1Compatible } from '../flags.js';
import { loadBuiltinModules } from '../../runtime/custom-builtins.js';
import { collectList } from '../options.js';

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

async function evaluate(query: string, f: EvalFlags, timeoutMs: number): Promise<EvalOutput> {
  const regoVersion: RegoVersion = f.v0Compatible ? 'v0' : 'v1';
  const metrics: Record<string, number> | undefined = f.metrics ? {} : undefined;
  const out: EvalOutput = { metrics };
  try {
    const t0 = process.hrtime.bigint();
    const loaded = await loadPaths({ paths: f.data, bundles: f.bundle, ignore: f.ignore, regoVersion });
    if (metrics) metrics.timer_rego_load_files_ns = Number(process.hrtime.bigint() - t0);
    const input =
      f.inputFormat === 'tombstone' && (f.input || f.stdinInput) ? await readTombstoneInput(f.input)
      : f.input ? readInputFile(f.input, f.inputFormat) : f.stdinInput ? parseInputText(readStdin(), 'stdin', f.inputFormat) : undefined;
    const t1 = process.hrtime.bigint();
    const set = buildPolicySet(loaded, { regoVersion, strictBuiltinErrors: f.strictBuiltinErrors, builtins: await loadBuiltinModules(f.builtins) });
    if (metrics) metrics.timer_rego_module_compile_ns = Number(process.hrtime.bigint() - t1);
    const prepared = prepareQuery(set, query, regoVersion);
    const tracer = f.explain ? new BufferTracer(f.explain as ExplainMode) : undefined;
    if (f.partial) {
      const t2 = process.hrtime.bigint();
      out.partial = partialOrThrow(() => partialPlan(prepared.plan, {
        tracer,
        input,
        data: loaded.data,
        unknowns: f.unknowns.length ? f.unknowns : ['input'],
        strictBuiltinErrors: f.strictBuiltinErrors,
        deadline: timeoutMs ? Date.now() + timeoutMs : undefined,
      }));
      if (metrics) metrics.timer_rego_partial_eval_ns = Number(process.hrtime.bigint() - t2);
      if (tracer) out.explanation = { lines: tracer.lines(), events: tracer.json() };
      return out;
    }
    out.results = await runPrepared(prepared, { input, data: loaded.data, strict: f.strictBuiltinErrors, timeoutMs, tracer });
    if (metrics) Object.assign(metrics, prepared.metrics);
    if (tracer) {
      out.explanation = {
        lines: tracer.lines(),
        events: tracer.json(),
      };
    }
  } catch (e) {
    out.errors = toErrorDetails(e);
  }
  return out;
}

export default evalCommand.action(async (queryArg, f) => {
  const { format, timeoutMs, prettyLimit } = checkFlags(f);
  let query = queryArg;
  if (f.stdin) {
    if (query !== undefined) throw new CLIError('specify query argument or --stdin but not both');
    query = readStdin();
  }
  if (query === undefined || query.trim() === '') throw new CLIError('specify query argument or --stdin');
  const out = await evaluate(query, f, timeoutMs);
  const printed = renderEval(out, format, prettyLimit);
  process.stdout.write(printed.stdout);
  process.stderr.write(printed.stderr);
  if (out.errors?.length) throw new CLIError('');
  const defined = f.partial ? (out.partial?.queries.length ?? 0) > 0 : (out.results?.length ?? 0) > 0;
  if ((f.fail && !defined) || (f.failDefined && defined)) throw new CLIError('');
});
