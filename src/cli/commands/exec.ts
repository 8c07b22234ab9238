// `regolith exec`: evaluates one decision against each input file, as `opa exec` does. The
// policies come from the configuration (bundles, services; -b adds local bundles as
// file:// bundles named ~0, ~1, ...), downloaded once (every plugin's trigger is manual)
// before any input is evaluated; decision logs are uploaded once after the last one. The
// output is OPA's `{"result": [{"path": ..., "result": ...}]}`; --fail / --fail-defined /
// --fail-non-empty turn results into exit code 1 with OPA's message.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import yaml from 'js-yaml';
import type { Logger } from 'pino';
import { toJSONText, type Value } from '../../engine/index.js';
import { RegolithEngine } from '../../engine/store-engine.js';
import { Store } from '../../storage/index.js';
import { parseDataJSON } from '../../bundle/load.js';
import { ConfigError, loadConfigDocument, validateConfig, type Config } from '../../plugins/config/index.js';
import { PluginManager } from '../../plugins/manager.js';
import { registerIntegrations } from '../../integrations/index.js';
import { createRunLogger } from '../../runtime/logger.js';
import { toErrorDetails } from '../../runtime/policy-set.js';
import { parseDuration } from '../duration.js';
import { CLIError } from '../io.js';
import { LOG_FORMATS, LOG_LEVELS, collect } from '../options.js';
import { command, opt, type OptionsOf } from '../command.js';
import { builtins, bundlePaths, format, logTimestampFormat, stdinInput, v0Compatible, v1Compatible } from '../flags.js';
import { loadBuiltinModules } from '../../runtime/custom-builtins.js';
import { newDecisionId } from '../../engine/decision-id.js';

const execCommand = command({
  name: 'exec',
  description: 'Execute against input files',
  args: [['[paths...]', 'input files (JSON or YAML) or directories holding them']],
  flags: [
    bundlePaths(),
    format(['json'], 'json'),
    opt('-c, --config-file <file>', 'set path of configuration file'),
    opt('--set <key=value>', 'override config values on the command line (use commas to specify multiple values)', collect, [] as string[]),
    opt('--set-file <key=path>', 'override config values with files on the command line', collect, [] as string[]),
    opt('--decision <path>', 'set decision to evaluate (default: default_decision of the configuration, /system/main)'),
    opt('--fail-defined', 'exits with non-zero exit code on defined/non-empty result and errors'),
    opt('--fail', 'exits with non-zero exit code on undefined/empty result and errors'),
    opt('--fail-non-empty', 'exits with non-zero exit code on non-empty result and errors'),
    stdinInput(),
    // error by default, as opa exec: stderr stays quiet unless something goes wrong
    opt('-l, --log-level <level>', `set log level (${LOG_LEVELS.join(', ')})`, 'error'),
    opt('--log-format <format>', `set log format (${LOG_FORMATS.join(', ')})`, 'json'),
    logTimestampFormat(),
    opt('--timeout <duration>', "set exec timeout with a Go-style duration, such as '5m 30s' (default unlimited)", '0s'),
    v0Compatible(),
    v1Compatible(),
    builtins(),
  ],
  examples: [
    'regolith exec --decision /authz/allow -b policies/ inputs/',
    'regolith exec -c config.yaml --fail-defined requests/*.json',
    'cat request.json | regolith exec --stdin-input -b bundle.tar.gz --decision authz/allow',
  ],
});

export type ExecFlags = OptionsOf<typeof execCommand>;

/** One line of the report; fields in the order OPA's reporter writes them. */
export interface ExecResult {
  error?: { code?: string; message: string; location?: unknown };
  result?: Value;
  decision_id?: string;
  path: string;
}

export interface ExecReport {
  results: ExecResult[];
  /** Set when a --fail* flag fails the run: OPA's message. */
  failure?: string;
}

const STDIN_PATH = '--stdin-input';
const INPUT_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

/** The flags' values (OPA's flag parsing: their errors are printed, not logged). */
function checkFlagValues(f: ExecFlags): void {
  if (f.format !== 'json') throw new CLIError(`invalid argument "${f.format}" for "-f, --format" flag: must be one of {json}`);
  if (!LOG_LEVELS.includes(f.logLevel)) throw new CLIError(`invalid argument "${f.logLevel}" for "-l, --log-level" flag: must be one of {${LOG_LEVELS.join(', ')}}`);
  if (!LOG_FORMATS.includes(f.logFormat)) throw new CLIError(`invalid argument "${f.logFormat}" for "--log-format" flag: must be one of {${LOG_FORMATS.join(', ')}}`);
  if (parseDuration(f.timeout) === undefined) throw new CLIError(`invalid argument "${f.timeout}" for "--timeout" flag: time: invalid duration "${f.timeout}"`);
}

function checkFlags(paths: string[], f: ExecFlags): void {
  checkFlagValues(f);
  if (!f.stdinInput && paths.length === 0) throw new CLIError('requires at least 1 path arg, or the --stdin-input flag');
  // OPA's validateParams, with its messages
  if (f.fail && f.failDefined) throw new CLIError('specify --fail or --fail-defined but not both');
  if (f.failNonEmpty && f.fail) throw new CLIError('specify --fail-non-empty or --fail but not both');
  if (f.failNonEmpty && f.failDefined) throw new CLIError('specify --fail-non-empty or --fail-defined but not both');
}

/** OPA's setupConfig: the -b bundles as file:// bundles, every plugin triggered by hand. */
export function execConfig(f: Pick<ExecFlags, 'configFile' | 'set' | 'setFile' | 'bundle'>): Config {
  registerIntegrations();
  try {
    const doc = loadConfigDocument({ configFile: f.configFile, set: f.set, setFile: f.setFile }) as Record<string, unknown>;
    const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
    if (f.bundle.length) {
      const bundles = obj(doc.bundles) ?? (doc.bundles = {});
      f.bundle.forEach((p, i) => {
        (bundles as Record<string, unknown>)[`~${i}`] = { resource: `file://${resolve(p)}` };
      });
    }
    const discovery = obj(doc.discovery);
    if (discovery) discovery.trigger = 'manual';
    for (const b of Object.values(obj(doc.bundles) ?? {})) {
      const bc = obj(b);
      if (bc) bc.trigger = 'manual';
    }
    const reporting = obj(obj(doc.decision_logs)?.reporting);
    if (reporting) reporting.trigger = 'manual';
    else if (obj(doc.decision_logs)) (doc.decision_logs as Record<string, unknown>).reporting = { trigger: 'manual' };
    const status = obj(doc.status);
    if (status) status.trigger = 'manual';
    return validateConfig(doc);
  } catch (e) {
    if (e instanceof ConfigError) throw new CLIError(`config error: ${e.message}`);
    throw e;
  }
}

/** Input files under the paths, walked in lexical order as Go's filepath.Walk does. */
export function inputFiles(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string): void => {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new CLIError(`exec error: lstat ${p}: no such file or directory`);
    }
    if (!st.isDirectory()) {
      out.push(p);
      return;
    }
    for (const name of readdirSync(p).sort()) walk(join(p, name));
  };
  paths.forEach(walk);
  return out;
}

/** JSON or YAML text as the input document (OPA's util.Unmarshal reads both). */
function parseInput(text: string, source: string): Value {
  try {
    return parseDataJSON(text, source);
  } catch {
    try {
      return (yaml.load(text, { schema: yaml.CORE_SCHEMA }) ?? null) as Value;
    } catch (e) {
      throw new Error(`${source}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
}

/** "/a/b", "a/b" or "a.b"-free data path -> its segments under data. */
function decisionRef(path: string): string[] {
  return path.replace(/^\/+/, '').split('/').filter((s) => s !== '');
}

interface Evaluator {
  decide(input: Value, path: string): Promise<ExecResult>;
}

function evaluator(engine: RegolithEngine, manager: PluginManager, decision: string): Evaluator {
  const ref = decisionRef(decision);
  return {
    async decide(input, path) {
      const decisionId = newDecisionId();
      const timestamp = new Date().toISOString();
      let result: ExecResult;
      try {
        const r = await engine.evaluate(ref, { input });
        result = r.result === undefined
          ? { error: { code: 'opa_undefined_error', message: `${decision} decision was undefined` }, path }
          : { result: r.result, decision_id: decisionId, path };
      } catch (e) {
        const d = toErrorDetails(e)[0]!;
        result = { error: { ...(d.code ? { code: d.code } : {}), message: d.message, ...(d.location ? { location: d.location } : {}) }, path };
      }
      await manager.decisionLogs?.logDecision({
        decision_id: decisionId,
        path: ref.join('/'),
        input,
        ...(result.result !== undefined ? { result: result.result } : {}),
        ...(result.error && result.error.code !== 'opa_undefined_error' ? { error: { code: result.error.code ?? '', message: result.error.message } } : {}),
        timestamp,
      });
      return result;
    },
  };
}

function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

/** OPA's jsonReporter: the results and, with a --fail* flag, whether the run failed. */
async function execute(paths: string[], f: ExecFlags, ev: Evaluator, stdin: () => string): Promise<ExecReport> {
  const results: ExecResult[] = [];
  let failCount = 0;
  let errorCount = 0;
  const failing = !!(f.fail || f.failDefined || f.failNonEmpty);
  const store = async (input: Value, path: string): Promise<void> => {
    const r = await ev.decide(input, path);
    results.push(r);
    if (r.error) {
      const undefinedErr = r.error.code === 'opa_undefined_error';
      if ((f.failDefined && !undefinedErr) || (f.fail && undefinedErr) || (f.failNonEmpty && !undefinedErr)) errorCount++;
      return;
    }
    // OPA's result is nil for a null value; a set is an array in its JSON result.
    const isNil = r.result === null;
    if ((f.failDefined && !isNil) || (f.fail && isNil)) failCount++;
    if (f.failNonEmpty && !isNil && toJSONText(r.result!) !== '[]') failCount++;
  };
  if (f.stdinInput) {
    const text = stdin();
    if (text.trim() === '') throw new CLIError('exec error: cannot execute on empty input; please enter valid json or yaml when using the --stdin-input flag');
    let input: Value;
    try {
      input = parseInput(text, 'stdin');
    } catch (e) {
      throw new CLIError(`exec error: ${(e as Error).message}`);
    }
    await store(input, STDIN_PATH);
  }
  for (const file of inputFiles(paths)) {
    if (!INPUT_EXTENSIONS.has(extname(file))) continue;
    let input: Value;
    try {
      input = parseInput(readFileSync(file, 'utf8'), file);
    } catch (e) {
      results.push({ error: { message: (e as Error).message }, path: file });
      if (failing) errorCount++;
      continue;
    }
    await store(input, file);
  }
  const flag = f.fail ? '--fail' : f.failDefined ? '--fail-defined' : '--fail-non-empty';
  const failure = failing && (failCount > 0 || errorCount > 0)
    ? `there were ${failCount} failures and ${errorCount} errors counted in the results list, and ${flag} is set`
    : undefined;
  return { results, failure };
}

/** The report as OPA's encoder writes it (two-space indent, fields in struct order). */
export function renderExecReport(results: ExecResult[]): string {
  if (!results.length) return '{\n  "result": []\n}\n';
  const field = (k: string, v: Value) => `      ${JSON.stringify(k)}: ${toJSONText(v, 2).replace(/\n/g, '\n      ')}`;
  const items = results.map((r) => {
    const fields: string[] = [];
    if (r.error) fields.push(field('error', r.error as unknown as Value));
    if (r.result !== undefined) fields.push(field('result', r.result));
    if (r.decision_id) fields.push(field('decision_id', r.decision_id));
    fields.push(field('path', r.path));
    return `    {\n${fields.join(',\n')}\n    }`;
  });
  return `{\n  "result": [\n${items.join(',\n')}\n  ]\n}\n`;
}

/** Runs exec: plugins up, every input decided, logs flushed, plugins down. */
export async function runExec(paths: string[], f: ExecFlags, io: { stdin?: () => string; logger?: Logger } = {}): Promise<ExecReport> {
  checkFlags(paths, f);
  const timeoutMs = parseDuration(f.timeout)!;
  const deadline = timeoutMs ? Date.now() + timeoutMs : undefined;
  const config = execConfig(f);
  const logger = io.logger ?? createRunLogger(f.logLevel, f.logFormat);
  const regoVersion = f.v0Compatible ? 'v0' : 'v1';
  const custom = await loadBuiltinModules([...(f.builtins ?? []), ...(config.builtins ?? [])]);
  const engine = new RegolithEngine({ store: new Store(), regoVersion, timeoutMs: timeoutMs || undefined, builtins: custom });
  // Console decision logs go to stderr: stdout holds the report.
  const manager = new PluginManager({ config, engine, regoVersion, logger, console: createRunLogger('info', 'json') });
  try {
    await manager.start();
    await manager.bundle?.trigger();
    await manager.status?.trigger();
    if (deadline !== undefined && Date.now() > deadline) {
      throw new CLIError('exec error: timed out before OPA was ready. This can happen when a remote bundle is malformed, or the timeout is set too low for normal OPA initialization');
    }
    // OPA waits until every bundle is active; a bundle that failed once would never be.
    if (manager.bundle && manager.bundle.status().state !== 'OK') {
      const failed = Object.values(manager.bundle.bundleStatuses()).filter((s) => s.code || s.message);
      const why = failed.map((s) => `bundle ${s.name}: ${[s.message, ...(s.errors ?? [])].filter(Boolean).join(': ')}`).join('; ');
      throw new CLIError(`runtime error: ${why || 'bundles not activated'}`);
    }
    const decision = f.decision || config.default_decision;
    const report = await execute(paths, f, evaluator(engine, manager, decision), io.stdin ?? readStdin);
    await manager.decisionLogs?.trigger();
    return report;
  } finally {
    await manager.stop();
  }
}

/** As opa exec ends on an error: logged at level error ("Unexpected error." with the error as `err`), exit 1. */
function unexpected(f: ExecFlags, message: string): never {
  createRunLogger(f.logLevel, f.logFormat).error({ err: message }, 'Unexpected error.');
  throw new CLIError('', 1);
}

export default execCommand.action(async (paths, f) => {
  checkFlagValues(f);
  let report: ExecReport;
  try {
    report = await runExec(paths, f);
  } catch (e) {
    unexpected(f, (e as Error).message);
  }
  process.stdout.write(renderExecReport(report.results));
  if (report.failure) unexpected(f, `exec error: ${report.failure}`);
});
