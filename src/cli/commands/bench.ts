// `regolith bench`: benchmarks the evaluation of a query as `opa bench` does (policy, data
// and input loaded once, the prepared query evaluated repeatedly), printing ns/op, memory
// per op (estimated from heap growth: Node has no allocation counter) and latency
// percentiles, as a table, Go's BenchmarkResult JSON, or Go benchmark lines.

import { readFileSync } from 'node:fs';
import { partialPlan, toEngineError, type RegoVersion, type Value } from '../../engine/index.js';
import { benchmark, goBenchMemString, goBenchString, type BenchResult } from '../bench-loop.js';
import { renderEval } from '../eval-output.js';
import { CLIError } from '../io.js';
import { jsonText, ordered } from '../json-out.js';
import { loadPaths, LoadError } from '../../runtime/load-paths.js';
import { BENCH_FORMATS } from '../options.js';
import { buildPolicySet, prettyErrorText, toErrorDetails } from '../../runtime/policy-set.js';
import { runPrepared, type PreparedRun } from '../../runtime/query.js';
import { parseInputText, prepare, queryContext } from './eval.js';
import { command, opt, type OptionsOf } from '../command.js';
import { benchmem, builtins, bundlePaths, data, format, ignore, input, refused, schema, stdinInput, v0Compatible, v1Compatible } from '../flags.js';
import { collect, collectList } from '../options.js';
import { schemaOptions } from '../schema-flag.js';
import { loadBuiltinModules } from '../../runtime/custom-builtins.js';

const benchCommand = command({
  name: 'bench',
  description: 'Benchmark a Rego query',
  args: [['[query]', 'the Rego query to benchmark (or --stdin)']],
  flags: [
    data(),
    bundlePaths(),
    input(),
    stdinInput(),
    format(BENCH_FORMATS, 'pretty'),
    opt('--count <n>', 'number of times to repeat each benchmark', '1'),
    opt('--benchtime <seconds>', 'how long each benchmark runs (seconds)', '1'),
    ...benchmem(),
    opt('--metrics', 'report latency percentiles with benchmark results (default true)', true),
    opt('--no-metrics', 'do not report latency percentiles'),
    opt('--fail', 'exits with non-zero exit code on undefined/empty result and errors (default true)', true),
    opt('--no-fail', 'benchmark even when the result is undefined'),
    ignore(),
    v0Compatible(),
    v1Compatible(),
    builtins(),
    // OPA's other bench flags
    opt('--stdin', 'read query from stdin'),
    opt('--package <pkg>', 'set query package'),
    opt('--import <import>', 'set query import(s); repeatable', collect, [] as string[]),
    schema(),
    opt('-p, --partial', 'perform partial evaluation'),
    opt('-u, --unknowns <ref>', 'set paths to treat as unknown during partial evaluation (default [input])', collectList, [] as string[]),
    opt('--optimize-store-for-read-speed', "optimize default in-memory store for read speed (accepted: regolith bench reads data without OPA's store)"),
    refused('-t, --target <target>', 'set the runtime to exercise (only rego)', (v) =>
      v === 'rego' ? undefined
      : v === 'wasm' ? `--target ${String(v)} is not supported: regolith evaluates Rego directly (no Wasm); drop -t or use -t rego`
      : `invalid argument "${String(v)}" for "-t, --target" flag: must be one of {rego,wasm}`),
    refused('--e2e', 'run benchmarks against a running server (not supported)', () =>
      '--e2e is not supported: benchmark a running `regolith run --server` with an HTTP load tool (e.g. `hey` or `k6`) against POST /v1/data/<path>'),
    refused('-c, --config-file <file>', 'set path of configuration file (only with --e2e: not supported)', () =>
      '--config-file only applies to --e2e, which regolith bench does not support; drop it'),
    refused('--shutdown-grace-period <seconds>', 'server shutdown grace period (only with --e2e: not supported)', () =>
      '--shutdown-grace-period only applies to --e2e, which regolith bench does not support; drop it'),
    refused('--shutdown-wait-period <seconds>', 'server shutdown wait period (only with --e2e: not supported)', () =>
      '--shutdown-wait-period only applies to --e2e, which regolith bench does not support; drop it'),
  ],
  examples: [
    "regolith bench -d examples/sample -i input.json 'data.httpapi.authz.allow'",
    "regolith bench --format json --count 3 -b bundle.tar.gz 'data.authz.allow'",
  ],
});

type BenchFlags = OptionsOf<typeof benchCommand>;

const FORMATS = BENCH_FORMATS;
const LATENCY_SAMPLES = 1000;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function latencies(run: () => Promise<unknown>, n: number): Promise<Record<string, number>> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await run();
    xs.push(Number(process.hrtime.bigint() - t0));
  }
  xs.sort((a, b) => a - b);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const stddev = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  const k = 'histogram_eval_op_latency';
  return {
    [`${k}_75%`]: percentile(xs, 75),
    [`${k}_90%`]: percentile(xs, 90),
    [`${k}_95%`]: percentile(xs, 95),
    [`${k}_99%`]: percentile(xs, 99),
    [`${k}_99.9%`]: percentile(xs, 99.9),
    [`${k}_count`]: xs.length,
    [`${k}_max`]: xs[xs.length - 1]!,
    [`${k}_mean`]: Math.round(mean),
    [`${k}_median`]: percentile(xs, 50),
    [`${k}_min`]: xs[0]!,
    [`${k}_stddev`]: Math.round(stddev),
  };
}

function prettyTable(rows: [string, string][]): string {
  const w0 = Math.max(...rows.map(([k]) => k.length));
  const w1 = Math.max(...rows.map(([, v]) => v.length));
  const line = `+${'-'.repeat(w0 + 2)}+${'-'.repeat(w1 + 2)}+`;
  return [line, ...rows.map(([k, v]) => `| ${k.padEnd(w0)} | ${v.padStart(w1)} |`), line].join('\n') + '\n';
}

function report(r: BenchResult, extra: Record<string, number>, f: BenchFlags): string {
  if (f.format === 'json') {
    return (
      jsonText(
        ordered({
          N: r.n,
          T: r.totalNs,
          Bytes: 0,
          MemAllocs: f.benchmem ? r.allocsPerOp * r.n : 0,
          MemBytes: f.benchmem ? r.bytesPerOp * r.n : 0,
          Extra: Object.keys(extra).length ? extra : undefined,
        }),
      ) + '\n'
    );
  }
  if (f.format === 'gobench') {
    const extras = Object.keys(extra)
      .sort()
      .map((k) => `\t${extra[k]} ${k}`)
      .join('');
    return `BenchmarkREGOEval\t${goBenchString(r)}${f.benchmem ? '\t' + goBenchMemString(r) : ''}${extras}\n`;
  }
  const rows: [string, string][] = [
    ['samples', String(r.n)],
    ['ns/op', String(Math.round(r.nsPerOp))],
  ];
  if (f.benchmem) rows.push(['B/op', String(r.bytesPerOp)], ['allocs/op', String(r.allocsPerOp)]);
  for (const k of Object.keys(extra).sort()) rows.push([k, String(extra[k])]);
  return prettyTable(rows);
}

async function doBench(queryArg: string | undefined, f: BenchFlags): Promise<void> {
  if (f.stdin && queryArg !== undefined) throw new CLIError('specify query argument or --stdin but not both');
  if (!f.stdin && queryArg === undefined) throw new CLIError('specify query argument or --stdin');
  const query = f.stdin ? readFileSync(0, 'utf8') : queryArg!;
  if (!FORMATS.includes(f.format)) throw new CLIError(`invalid argument "${f.format}" for "-f, --format" flag: must be one of {${FORMATS.join(', ')}}`);
  const count = Number(f.count);
  if (!Number.isInteger(count) || count < 1) throw new CLIError(`invalid argument "${f.count}" for "--count" flag`);
  const benchTimeMs = Number(f.benchtime) * 1000;
  if (!Number.isFinite(benchTimeMs) || benchTimeMs <= 0) throw new CLIError(`invalid argument "${f.benchtime}" for "--benchtime" flag`);
  const regoVersion: RegoVersion = f.v0Compatible ? 'v0' : 'v1';

  let prepared: PreparedRun;
  let input: Value | undefined;
  let data: Value;
  try {
    const loaded = await loadPaths({ paths: f.data, bundles: f.bundle, ignore: f.ignore, regoVersion });
    data = loaded.data;
    if (f.input) {
      let text: string;
      try {
        text = readFileSync(f.input, 'utf8');
      } catch {
        throw new LoadError(`open ${f.input}: no such file or directory`);
      }
      input = parseInputText(text, f.input);
    } else if (f.stdinInput) input = parseInputText(readFileSync(0, 'utf8'), 'stdin');
    const set = buildPolicySet(loaded, { regoVersion, builtins: await loadBuiltinModules(f.builtins), ...schemaOptions(f.schema) });
    prepared = prepare(set, query, regoVersion, queryContext(f, regoVersion));
    if (f.partial) {
      // -p: what is benchmarked is partial evaluation of the query (OPA's bench with --partial)
      const unknowns = f.unknowns.length ? f.unknowns : ['input'];
      const pe = (): Promise<unknown> => {
        try {
          return Promise.resolve(partialPlan(prepared.plan, { input, data, unknowns }));
        } catch (e) {
          return Promise.reject(toEngineError(e));
        }
      };
      await pe();
      await runBench(pe, f);
      return;
    }
    const first = await runPrepared(prepared, { input, data, print: () => {} });
    if (f.fail && first.length === 0) {
      process.stdout.write(renderEval({ results: first }, 'pretty').stdout);
      throw new CLIError('undefined result');
    }
  } catch (e) {
    if (e instanceof CLIError) throw e;
    throw new CLIError(prettyErrorText(toErrorDetails(e)));
  }

  await runBench(() => runPrepared(prepared, { input, data, print: () => {} }), f);
}

async function runBench(op: () => Promise<unknown>, f: BenchFlags): Promise<void> {
  const count = Number(f.count);
  const benchTimeMs = Number(f.benchtime) * 1000;
  for (let i = 0; i < count; i++) {
    const r = await benchmark(op, benchTimeMs);
    const extra = f.metrics ? await latencies(op, Math.min(LATENCY_SAMPLES, Math.max(r.n, 1))) : {};
    process.stdout.write(report(r, extra, f));
  }
}

export default benchCommand.action(doBench);
