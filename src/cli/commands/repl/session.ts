// One REPL session, as OPA's repl package keeps it: modules typed at the prompt (one per
// package; `package` switches, `import` adds to the current one, rules are added and the
// whole policy recompiled, `:=` redefines), queries evaluated in the current package with
// data.repl.input as input, the commands that toggle output and tracing, and multi-line
// input buffered until an empty line once a line does not parse alone.

import { writeFileSync } from 'node:fs';
import {
  BufferTracer,
  formatText,
  IDENTIFIER,
  packageRuleNames,
  parseModule,
  parseTerm,
  partialPlan,
  planQuery,
  planQueryInPackage,
  refText,
  Regolith,
  RegoParseError,
  toEngineError,
  toJSONText,
  type Body,
  type CompiledPolicy,
  type CustomBuiltin,
  type ExplainMode,
  type Import,
  type Module,
  type PlainObject,
  type RegoErrorDetail,
  type RegoVersion,
  type Rule,
  type Term,
  type TraceEvent,
  type Tracer,
  type Value,
} from '../../../engine/index.js';
import { renderEval, type EvalOutput } from '../../eval-output.js';
import { Profiler } from '../../../engine/profiler.js';
import { CommandErrors, prettyErrorText, toErrorDetails } from '../../../runtime/policy-set.js';
import { runPrepared } from '../../../runtime/query.js';
import { COMMANDS, helpText, topicText } from './help.js';
import { parseStatement, StatementError, type Statement } from './statements.js';
import { typeLines } from './types.js';
import { InstrumentTracer } from '../../instrument.js';

export type ReplFormat = 'pretty' | 'json';
const EXPLAIN_MODES = ['off', 'full', 'notes', 'fails', 'debug'] as const;
type Explain = (typeof EXPLAIN_MODES)[number];

export interface ReplOptions {
  /** Custom built-ins (--builtins). */
  builtins?: CustomBuiltin[];
  /** The modules loaded from the paths given (already parsed), by file name. */
  modules: Map<string, Module>;
  data: PlainObject;
  regoVersion: RegoVersion;
  format?: ReplFormat;
  /** Everything the REPL prints. */
  write: (text: string) => void;
  /** print() output (stderr in OPA). */
  print?: (text: string) => void;
}

interface ReplRule {
  name: string;
  rule: Rule;
  text: string;
}

interface ReplModule {
  path: string[];
  imports: { imp: Import; text: string }[];
  rules: ReplRule[];
}

/** An error the REPL prints as is (OPA returns these from a command). */
class ReplError extends Error {}

const REPL_INPUT = ['repl', 'input'];

function packageText(path: string[]): string {
  return `package ${refText(path).slice('data.'.length)}`;
}

/** A rule head's ref as OPA prints it (`p`, `a.b.c`, `p[x]`). */
function headRefText(ref: Term[]): string {
  let out = '';
  ref.forEach((t, i) => {
    if (i === 0) out += t.type === 'var' ? t.value : '?';
    else if (t.type === 'string') out += IDENTIFIER.test(t.value) ? `.${t.value}` : `[${JSON.stringify(t.value)}]`;
    else if (t.type === 'var') out += `[${t.value}]`;
    else out += `[${'value' in t ? String(t.value) : t.type}]`;
  });
  return out;
}

function ruleName(r: Rule): string {
  const first = r.head.ref[0];
  return r.head.name ?? (first?.type === 'var' ? first.value : '');
}

export class ReplSession {
  private buffer: string[] = [];
  private readonly modules = new Map<string, ReplModule>();
  private current: string | undefined;
  format: ReplFormat;
  private explain: Explain = 'off';
  private metrics = false;
  private instrument = false;
  private types = false;
  private profile = false;
  private strict = false;
  private unknowns: string[] = [];
  private prettyLimit = 80;

  constructor(private readonly opts: ReplOptions) {
    this.format = opts.format ?? 'pretty';
  }

  /**
   * Tab completion as OPA's: the imports of the REPL's modules and the paths of every rule
   * (data.pkg.rule) that start with the text typed so far.
   */
  complete(line: string): string[] {
    const found = new Set<string>();
    for (const m of this.modules.values()) {
      for (const { imp } of m.imports) {
        const path = imp.path.value;
        const head = path[0];
        if (head?.type !== 'var' || (head.value !== 'data' && head.value !== 'input')) continue;
        const text = refText(path.slice(1).map((t) => (t.type === 'string' ? t.value : '')), head.value);
        if (text.startsWith(line)) found.add(text);
      }
    }
    let policy: CompiledPolicy;
    try {
      policy = this.policy().policy;
    } catch {
      return [...found].sort();
    }
    const walk = (node: CompiledPolicy['root']): void => {
      if ([...node.allRules()].length) {
        const text = refText(node.path);
        if (text.startsWith(line)) found.add(text);
      }
      for (const c of node.children.values()) walk(c);
    };
    walk(policy.root);
    return [...found].sort();
  }

  /** Drops the block being typed (ctrl+c). */
  reset(): void {
    this.buffer = [];
  }

  prompt(): string {
    return this.buffer.length ? '| ' : '> ';
  }

  /** Reads one line; true when the session should end (`exit`). Errors are printed, never thrown. */
  async oneShot(line: string): Promise<boolean> {
    try {
      return await this.handle(line);
    } catch (e) {
      this.buffer = [];
      this.opts.write(this.errorText(e) + '\n');
      return false;
    }
  }

  private errorText(e: unknown): string {
    if (e instanceof ReplError) return e.message;
    return errorsText(e instanceof StatementError ? e.errors : toErrorDetails(e));
  }

  private async handle(line: string): Promise<boolean> {
    if (this.buffer.length === 0) {
      const words = line.trim().split(/\s+/).filter((w) => w !== '');
      const op = words[0]?.toLowerCase();
      if (op && COMMANDS.some((c) => c.name === op)) return this.command(op, words.slice(1));
      this.buffer.push(line);
      return this.evalBuffer(false);
    }
    this.buffer.push(line);
    if (line.length === 0) return this.evalBuffer(true);
    return false;
  }

  /** A single line that does not parse stays buffered (multi-line input); an empty line ends the block. */
  private async evalBuffer(multi: boolean): Promise<boolean> {
    const text = this.buffer.join('\n');
    if (text.trim() === '') {
      this.buffer = [];
      return false;
    }
    let stmt: Statement;
    try {
      stmt = parseStatement(text, this.regoVersion());
    } catch (e) {
      if (!multi && e instanceof StatementError) return false;
      this.buffer = [];
      throw e;
    }
    this.buffer = [];
    await this.evalStatement(stmt);
    return false;
  }

  private regoVersion(): RegoVersion {
    return this.opts.regoVersion;
  }

  // ---- commands ------------------------------------------------------------------------

  private command(op: string, args: string[]): boolean {
    const w = this.opts.write;
    switch (op) {
      case 'exit':
        return true;
      case 'json':
      case 'pretty':
        this.format = op;
        return false;
      case 'pretty-limit': {
        if (args.length !== 1) throw new ReplError('usage: pretty-limit <n>');
        const n = Number(args[0]);
        if (!Number.isInteger(n)) throw new ReplError(`strconv.ParseInt: parsing ${JSON.stringify(args[0])}: invalid syntax`);
        this.prettyLimit = n;
        return false;
      }
      case 'trace':
        if (args.length === 1) {
          if (!(EXPLAIN_MODES as readonly string[]).includes(args[0]!)) throw new ReplError(`invalid explain mode, expected one of: ${EXPLAIN_MODES.join(', ')}`);
          this.toggleTrace(args[0] as Explain);
        } else this.toggleTrace('full');
        return false;
      case 'notes':
      case 'fails':
        this.toggleTrace(op);
        return false;
      case 'metrics':
        this.metrics = !this.metrics;
        this.instrument = false;
        return false;
      case 'instrument':
        this.instrument = !this.instrument;
        this.metrics = this.instrument;
        return false;
      case 'profile':
        this.profile = !this.profile;
        return false;
      case 'types':
        this.types = !this.types;
        return false;
      case 'strict-builtin-errors':
        this.strict = !this.strict;
        return false;
      case 'unknown':
        if (args.length === 0 && this.unknowns.length === 0) throw new ReplError("usage: unknown <input/data reference> [<input/data reference> [...]] (hint: try 'input')");
        for (const a of args) {
          try {
            const t = parseTerm(a);
            if (t.type !== 'ref' && t.type !== 'var') throw new Error();
          } catch {
            throw new ReplError("usage: unknown <input/data reference> [<input/data reference> [...]] (hint: try 'input')");
          }
        }
        this.unknowns = args;
        return false;
      case 'target':
        if (args.length !== 1) throw new ReplError('target <mode>: expects exactly one argument');
        if (args[0] === 'wasm') throw new ReplError('invalid target "wasm": regolith evaluates Rego only (no wasm target); use target rego');
        if (args[0] !== 'rego') throw new ReplError(`invalid target "${args[0]}":must be one of {rego,wasm}`);
        return false;
      case 'show':
        this.show(args);
        return false;
      case 'unset':
        this.unset(args);
        return false;
      case 'unset-package':
        this.unsetPackage(args);
        return false;
      case 'dump': {
        const text = JSON.stringify(JSON.parse(toJSONText(this.opts.data as Value))) + '\n';
        if (args.length === 0) w(text);
        else writeFileSync(args[0]!, text);
        return false;
      }
      case 'help': {
        if (args.length === 0) w(helpText(this.prompt()));
        else {
          const t = topicText(args[0]!);
          if (t === undefined) throw new ReplError(`unknown topic '${args[0]}'`);
          w(t);
        }
        return false;
      }
      default:
        return false;
    }
  }

  private toggleTrace(mode: Explain): void {
    this.explain = this.explain === mode ? 'off' : mode;
  }

  private show(args: string[]): void {
    if (args.length === 0) {
      const m = this.current !== undefined ? this.modules.get(this.current) : undefined;
      if (!m) {
        this.opts.write('no rules defined\n');
        return;
      }
      this.opts.write(formatText(this.moduleText(m), { regoVersion: this.regoVersion() }));
      return;
    }
    if (args[0] === 'debug') {
      const state = { explain: this.explain, metrics: this.metrics, instrument: this.instrument, profile: this.profile, 'strict-builtin-errors': this.strict };
      this.opts.write(JSON.stringify(state, null, '\t') + '\n');
      return;
    }
    throw new ReplError(`unknown option '${args[0]}'`);
  }

  private unset(args: string[]): void {
    if (args.length !== 1) throw new ReplError('unset <var>: expects exactly one argument');
    let t: Term;
    try {
      t = parseTerm(args[0]!);
    } catch {
      throw new ReplError('argument must identify a rule');
    }
    let name: string;
    if (t.type === 'var') name = t.value;
    else if (t.type === 'ref' && t.value[0]?.type === 'var' && (t.value[0].value === 'data' || t.value[0].value === 'input')) name = t.value[0].value;
    else throw new ReplError('arguments must identify a rule');
    if (!this.unsetRule(name)) this.opts.write('warning: no matching rules in current module\n');
  }

  /** Removes the current module's rules of that name (recompiling); false when there were none. */
  private unsetRule(name: string): boolean {
    const m = this.current !== undefined ? this.modules.get(this.current) : undefined;
    if (!m) return false;
    const kept = m.rules.filter((r) => r.name !== name);
    if (kept.length === m.rules.length) return false;
    const prev = m.rules;
    m.rules = kept;
    try {
      this.policy();
    } catch (e) {
      m.rules = prev;
      throw e;
    }
    return true;
  }

  private unsetPackage(args: string[]): void {
    if (args.length !== 1) throw new ReplError('unset-package <var>: expects exactly one argument');
    let key: string;
    try {
      key = this.packageKey(parseStatementPackage(args[0]!, this.regoVersion()));
    } catch {
      throw new ReplError('argument must identify a package');
    }
    if (!this.modules.delete(key)) {
      this.opts.write('warning: no matching package\n');
      return;
    }
    if (this.current === key) this.current = undefined;
  }

  // ---- statements ----------------------------------------------------------------------

  private packageKey(path: string[]): string {
    return JSON.stringify(path);
  }

  private currentOrDefault(): ReplModule {
    return (this.current !== undefined ? this.modules.get(this.current) : undefined) ?? { path: ['repl'], imports: [], rules: [] };
  }

  /** OPA's initModule: the first rule or import without a package goes to `package repl`. */
  private initModule(): ReplModule {
    if (this.current === undefined) this.switchPackage(['repl']);
    return this.modules.get(this.current!)!;
  }

  private switchPackage(path: string[]): void {
    const key = this.packageKey(path);
    if (!this.modules.has(key)) this.modules.set(key, { path, imports: [], rules: [] });
    this.current = key;
  }

  private async evalStatement(stmt: Statement): Promise<void> {
    switch (stmt.kind) {
      case 'package':
        this.switchPackage(stmt.package.path.slice(1).map((t) => (t.type === 'string' ? t.value : String((t as { value: unknown }).value))));
        return;
      case 'import': {
        const m = this.initModule();
        for (const imp of stmt.imports) {
          const text = imp.location?.text ?? stmt.text;
          if (!m.imports.some((i) => i.text === text)) m.imports.push({ imp, text });
        }
        return;
      }
      case 'rules':
        for (const r of stmt.rules) this.defineRule(r.rule, r.text);
        return;
      case 'query':
        await this.query(stmt.body, stmt.text);
        return;
    }
  }

  private moduleText(m: ReplModule): string {
    return [packageText(m.path), ...m.imports.map((i) => i.text), ...m.rules.map((r) => r.text)].join('\n\n') + '\n';
  }

  /** The loaded modules and the REPL's, compiled. Throws the compile errors. */
  private policy(): { policy: CompiledPolicy } {
    const regolith = new Regolith({
      regoVersion: this.regoVersion(),
      strictBuiltinErrors: this.strict,
      print: (msg) => (this.opts.print ?? this.opts.write)(msg + '\n'),
      builtins: this.opts.builtins,
    });
    for (const [file, m] of this.opts.modules) regolith.addParsedModule(file, m);
    for (const [key, m] of this.modules) regolith.addParsedModule(`\u0000repl${key}`, parseModule(this.moduleText(m), { filename: '', regoVersion: this.regoVersion() }));
    regolith.setData(this.opts.data);
    return { policy: regolith.compile() };
  }

  private defineRule(rule: Rule, text: string): void {
    const name = ruleName(rule);
    const m = this.initModule();
    const prev = m.rules;
    const redefined = !!rule.head.assign && m.rules.some((r) => r.name === name);
    if (rule.head.assign) m.rules = m.rules.filter((r) => r.name !== name);
    m.rules = [...m.rules, { name, rule, text }];
    try {
      this.policy();
    } catch (e) {
      m.rules = prev;
      throw e;
    }
    if (this.format !== 'json') {
      this.opts.write(`Rule '${headRefText(rule.head.ref)}' ${redefined ? 're-defined' : 'defined'} in ${packageText(m.path)}. Type 'show' to see rules.\n`);
    }
  }

  /**
   * OPA's interpretAsRule: a query that is one `:=` (or `=` whose left side is no rule or
   * import of the current package) with a name on the left defines a rule.
   */
  private asRule(body: Body, text: string, policy: CompiledPolicy): boolean {
    if (body.length !== 1) return false;
    const e = body[0]!;
    if (e.negated || e.with?.length || !Array.isArray(e.terms) || e.terms.length !== 3) return false;
    const [op, lhs] = e.terms as Term[];
    const opName = op?.type === 'ref' && op.value.length === 1 && op.value[0]!.type === 'var' ? op.value[0]!.value : undefined;
    if (opName !== 'assign' && opName !== 'eq') return false;
    if (lhs?.type !== 'var' || lhs.value.startsWith('$')) return false;
    if (opName === 'eq') {
      const m = this.currentOrDefault();
      const imported = m.imports.some((i) => (i.imp.alias ?? lastSegment(i.imp)) === lhs.value);
      if (imported || packageRuleNames(policy, m.path).has(lhs.value)) return false;
    }
    let rules: Statement;
    try {
      rules = parseStatementAsRule(text, this.regoVersion());
    } catch {
      return false;
    }
    if (rules.kind !== 'rules' || rules.rules.length !== 1) return false;
    this.defineRule(rules.rules[0]!.rule, rules.rules[0]!.text);
    return true;
  }

  private async query(body: Body, text: string): Promise<void> {
    const { policy } = this.policy();
    const data = this.opts.data;
    const input = await this.replInput(policy, data);
    if (this.asRule(body, text, policy)) return;
    const m = this.currentOrDefault();
    const metrics: Record<string, number> | undefined = this.metrics ? {} : undefined;
    const out: EvalOutput = { metrics };
    const explainer = this.explain !== 'off' ? new BufferTracer(this.explain as ExplainMode) : undefined;
    // OPA's REPL reports every profiled expression (no limit), in its default order.
    const profiler = this.profile && !this.unknowns.length ? new Profiler() : undefined;
    const instrument = this.instrument && !this.unknowns.length ? new InstrumentTracer() : undefined;
    const tracer = bothTracers(bothTracers(explainer, profiler), instrument);
    let plan;
    try {
      plan = planQueryInPackage(policy, body, { path: m.path, imports: m.imports.map((i) => i.imp) }, this.regoVersion(), metrics);
    } catch (e) {
      throw new CommandErrors(toErrorDetails(e));
    }
    try {
      if (this.unknowns.length) {
        try {
          out.partial = partialPlan(plan, { input, data, unknowns: this.unknowns, strictBuiltinErrors: this.strict, tracer });
        } catch (e) {
          throw toEngineError(e);
        }
      } else {
        out.results = await runPrepared({ plan, metrics: metrics ?? {} }, { input, data, strict: this.strict, tracer, print: (msg) => (this.opts.print ?? this.opts.write)(msg + '\n') });
      }
    } catch (e) {
      out.errors = toErrorDetails(e);
    }
    if (explainer) out.explanation = { lines: explainer.lines(), events: explainer.json() };
    if (profiler) out.profile = profiler.report(0);
    if (instrument && metrics) {
      const measured = instrument.metrics();
      Object.assign(metrics, measured.timers);
      out.histograms = measured.histograms;
    }
    if (this.types && out.results) this.opts.write(typeLines(out.results).map((l) => l + '\n').join(''));
    if (out.errors?.length && this.format === 'pretty') {
      this.opts.write(errorsText(out.errors) + '\n');
      return;
    }
    const printed = renderEval(out, this.format, this.prettyLimit);
    this.opts.write(printed.stdout + printed.stderr);
  }

  /** OPA's loadInput: the value of data.repl.input, when defined. */
  private async replInput(policy: CompiledPolicy, data: PlainObject): Promise<Value | undefined> {
    const plan = planQuery(policy, `data.${REPL_INPUT.join('.')} = x`, 'v1');
    const rs = await runPrepared({ plan, metrics: {} }, { data });
    return rs.length === 1 ? rs[0]!.bindings.get('x') : undefined;
  }
}

/** One tracer fed to both the explanation and the profiler. */
function bothTracers(a: Tracer | undefined, b: Tracer | undefined): Tracer | undefined {
  if (!a || !b) return a ?? b;
  return {
    note: (m: string) => {
      a.note(m);
      b.note(m);
    },
    event: (e: TraceEvent) => {
      a.event?.(e);
      b.event?.(e);
    },
  };
}

/**
 * OPA's text of AST errors; what is typed at the prompt has no file name, so its errors are
 * located by row and column ("1:1: rego_unsafe_var_error: ...").
 */
function errorsText(errors: RegoErrorDetail[]): string {
  if (!errors.every((e) => e.location?.file === '')) return prettyErrorText(errors);
  const lines = errors.map((e) => `${e.location!.row}:${e.location!.col}: ${e.code}: ${e.message}`);
  return lines.length === 1 ? `1 error occurred: ${lines[0]}` : `${lines.length} errors occurred:\n${lines.join('\n')}`;
}

function lastSegment(imp: Import): string {
  const last = imp.path.value[imp.path.value.length - 1];
  return last?.type === 'string' ? last.value : last?.type === 'var' ? last.value : '';
}

function parseStatementPackage(arg: string, regoVersion: RegoVersion): string[] {
  const s = parseStatement(`package ${arg}`, regoVersion);
  if (s.kind !== 'package') throw new Error('not a package');
  return s.package.path.slice(1).map((t) => (t.type === 'string' ? t.value : ''));
}

/** The typed text read as rules only (a `:=` query turned into a rule). */
function parseStatementAsRule(text: string, regoVersion: RegoVersion): Statement {
  try {
    const m = parseModule(`package repl\n${text}`, { filename: '', regoVersion });
    return { kind: 'rules', rules: m.rules.map((rule) => ({ rule, text: rule.location?.text ?? text })) };
  } catch (e) {
    if (e instanceof RegoParseError) throw new StatementError(e.errors as RegoErrorDetail[]);
    throw e;
  }
}

