// Evaluates one playground request in a sandbox engine of its own made for that one
// request (the server's store and policies are never read), with explain, coverage and
// partial evaluation, and formats a module as `regolith fmt` does. Errors of every stage
// are 400s in OPA's shape with the locations in the playground's file names. The server
// runs it in a child process (sandbox.ts), or in-process without one (tests).

import {
  BufferTracer,
  CoverageTracer,
  coverageReport,
  EngineError,
  formatModule,
  parseModule,
  parseQuery,
  partialPlan,
  planQuery,
  planQueryInPackage,
  Regolith,
  runPlan,
  toEngineError,
  type Module,
  type RawResult,
  type TraceEvent,
  type Tracer,
} from '../../engine/index.js';
import { isPlainObject, newPlainObject, type PlainObject, type Value } from '../../value/index.js';
import { badRequest, Code, HttpError, Msg } from '../../server/errors.js';
import { since } from '../../server/handler.js';
import { envelope } from '../../server/respond.js';
import { checkRequest, PLAYGROUND_LIMITS, type CheckedRequest } from './request.js';
import { REGO_VERSIONS } from './wire.js';

/** A 400 in OPA's shape for an error of any stage; `stage` picks OPA's message. */
function stageError(e: unknown, stage: 'module' | 'query' | 'eval', timeoutMs: number): HttpError {
  const err = toEngineError(e);
  if (err instanceof HttpError) return err;
  if (!(err instanceof EngineError)) throw err;
  const errors = err.errors.map((x) => {
    const o: Record<string, unknown> = { code: x.code, message: x.message };
    if (x.location) o['location'] = { file: x.location.file, row: x.location.row, col: x.location.col };
    if (x.details !== undefined) o['details'] = x.details;
    return o;
  });
  if (err.kind === 'eval' || stage === 'eval') {
    if (err.errors.some((x) => x.code === 'eval_cancel_error')) {
      const message = `evaluation exceeded the playground's time limit (${timeoutMs / 1000} s)`;
      return new HttpError(400, Code.evaluation, message, [{ code: 'eval_cancel_error', message }]);
    }
    return new HttpError(400, Code.evaluation, Msg.evaluation, errors.length ? errors : [{ code: 'eval_error', message: err.message }]);
  }
  if (stage === 'module') return new HttpError(400, Code.invalidParameter, Msg.compileModule, errors);
  return new HttpError(400, Code.invalidParameter, err.kind === 'parse' ? Msg.parseQuery : Msg.compileQuery, errors);
}

/** One tracer feeding both the explanation and the coverage (either may be absent). */
function tee(a: Tracer | undefined, b: Tracer | undefined): Tracer | undefined {
  if (!a || !b) return a ?? b;
  return { note: (m) => (a.note(m), b.note(m)), event: (e) => (a.event?.(e), b.event?.(e)) };
}

/** What an event is about, as OPA's pretty trace prints it: a rule's path, an expression's text, a note. */
function eventText(e: TraceEvent): string {
  if (e.op === 'Note') return e.message ?? '';
  const n = e.node;
  let text = '';
  if (n?.type === 'rule') text = n.path;
  else if (n?.type === 'body') text = n.text;
  else if (n?.type === 'expr') {
    const t = n.expr.location?.text ?? '';
    // the positive half of `not x` shares its location: print it without the `not`
    text = n.expr.negated ? t : t.replace(/^not\s+/, '');
  }
  return e.message ? `${text} ${e.message}` : text;
}

/** The explanation: one entry per event the mode shows; depth 1 is the query itself. */
function explanation(tracer: BufferTracer): Value[] {
  const depths = new Map<number, number>();
  return tracer.events.map((e) => {
    let depth = depths.get(e.queryId);
    if (depth === undefined) depths.set(e.queryId, (depth = (depths.get(e.parentId) ?? 0) + 1));
    const o = newPlainObject();
    o['op'] = e.op;
    o['depth'] = depth;
    o['message'] = eventText(e);
    if (e.location) o['location'] = { file: e.location.file, row: e.location.row, col: e.location.col };
    return o;
  });
}

/** Covered and not covered rows of each playground module. */
function coverage(cov: CoverageTracer, modules: Map<string, Module>): Value {
  const report = coverageReport(cov.hits, modules);
  const rows = (rs: { start: { row: number }; end: { row: number } }[] | undefined): number[] => {
    const out: number[] = [];
    for (const r of rs ?? []) for (let i = r.start.row; i <= r.end.row; i++) out.push(i);
    return out;
  };
  const out = newPlainObject();
  for (const file of modules.keys()) {
    const f = report.files[file];
    out[file] = { covered: rows(f?.covered), not_covered: rows(f?.not_covered) };
  }
  return out;
}

function resultValue(raw: RawResult[]): Value[] {
  return raw.map((r) => {
    const bindings = newPlainObject();
    for (const [k, v] of r.bindings) bindings[k] = v;
    const expressions = r.expressions.map((e) => {
      const o = newPlainObject();
      o['value'] = e.value;
      o['text'] = e.text;
      if (e.location) o['location'] = { row: e.location.row, col: e.location.col };
      return o;
    });
    return { expressions, bindings };
  });
}

/** print() output of one evaluation, kept up to the playground's limits (then one line says how much was cut). */
function printCollector(): { print: (m: string) => void; lines: () => string[] | undefined } {
  const out: string[] = [];
  let chars = 0;
  let cut = 0;
  return {
    print(m) {
      if (out.length >= PLAYGROUND_LIMITS.printLines || chars + m.length > PLAYGROUND_LIMITS.printChars) return void cut++;
      out.push(m);
      chars += m.length;
    },
    lines: () => (out.length || cut ? (cut ? [...out, `(${cut} more print() lines not shown)`] : out) : undefined),
  };
}

/** The query's plan: read inside a module's package and imports when the request names one (evaluate selection). */
function plan(policy: ReturnType<Regolith['compile']>, r: CheckedRequest, modules: Map<string, Module>, metrics: Record<string, number>) {
  if (r.inModule === undefined) return planQuery(policy, r.query, r.regoVersion, metrics);
  const m = modules.get(r.inModule)!;
  const path = m.package.path.slice(1).map((t) => (t.type === 'string' ? t.value : ''));
  return planQueryInPackage(policy, parseQuery(r.query, { regoVersion: r.regoVersion }), { path, imports: m.imports }, r.regoVersion, metrics);
}

/** Evaluates one playground request in a fresh engine; throws HttpError (400) for errors of any stage. */
export async function evaluatePlayground(body: Value | undefined, timeoutMs = PLAYGROUND_LIMITS.timeoutMs): Promise<string> {
  const start = process.hrtime.bigint();
  const r = checkRequest(body, timeoutMs);
  const metrics: Record<string, number> = {};

  // parse every module first, so that the errors of all of them come back at once
  const t0 = process.hrtime.bigint();
  const modules = new Map<string, Module>();
  const parseErrors: unknown[] = [];
  for (const [file, text] of r.modules) {
    try {
      modules.set(file, parseModule(text, { filename: file, regoVersion: r.regoVersion }));
    } catch (e) {
      const h = stageError(e, 'module', timeoutMs);
      parseErrors.push(...(h.body.errors ?? [{ code: 'rego_parse_error', message: h.message }]));
    }
  }
  if (parseErrors.length) throw new HttpError(400, Code.invalidParameter, Msg.compileModule, parseErrors);
  metrics['timer_rego_module_parse_ns'] = Number(process.hrtime.bigint() - t0);

  const printed = printCollector();
  const rego = new Regolith({ regoVersion: r.regoVersion, print: printed.print, allowedBuiltins: r.allowedBuiltins });
  for (const [file, m] of modules) rego.addParsedModule(file, m);
  const t1 = process.hrtime.bigint();
  let policy;
  try {
    policy = rego.compile();
  } catch (e) {
    throw stageError(e, 'module', timeoutMs);
  }
  metrics['timer_rego_module_compile_ns'] = Number(process.hrtime.bigint() - t1);
  let queryPlan;
  try {
    queryPlan = plan(policy, r, modules, metrics);
  } catch (e) {
    throw stageError(e, 'query', timeoutMs);
  }

  const buffer = r.explain !== 'off' ? new BufferTracer(r.explain) : undefined;
  const cov = r.coverage ? new CoverageTracer() : undefined;
  const tracer = tee(buffer, cov);
  const data = r.data ?? newPlainObject();
  const deadline = Date.now() + timeoutMs;
  let result: Value[] | undefined;
  let partial: Value | undefined;
  try {
    if (r.unknowns && r.unknowns.length) {
      const t2 = process.hrtime.bigint();
      const p = partialPlan(queryPlan, { input: r.input, data, unknowns: r.unknowns, tracer, deadline });
      metrics['timer_rego_partial_eval_ns'] = Number(process.hrtime.bigint() - t2);
      partial = { queries: p.queriesText, support: p.supportText };
    } else {
      const raw = await runPlan(queryPlan, { input: r.input, data, deadline, tracer, print: printed.print, metrics });
      if (raw.length) result = resultValue(raw);
    }
  } catch (e) {
    throw stageError(e, 'eval', timeoutMs);
  }
  metrics['timer_server_handler_ns'] = since(start);
  return envelope(
    [
      ['result', result],
      ['explanation', buffer ? explanation(buffer) : undefined],
      ['coverage', cov ? coverage(cov, modules) : undefined],
      ['partial', partial],
      ['printed', printed.lines()],
      ['metrics', metrics as PlainObject],
    ],
    false,
  );
}

/** The formatted text of a module (in its Rego version, v1 by default), or a 400 with the parse errors. */
export function formatPlayground(body: Value | undefined): string {
  if (!isPlainObject(body)) throw badRequest('request body must be a JSON object');
  const b = body as PlainObject;
  const text = b['text'];
  const file = b['file'] ?? 'policy.rego';
  if (typeof text !== 'string') throw badRequest('"text" must be a string');
  if (typeof file !== 'string' || file === '' || file.length > PLAYGROUND_LIMITS.fileNameChars) throw badRequest(`"file" must be a string of 1 to ${PLAYGROUND_LIMITS.fileNameChars} characters`);
  if (text.length > PLAYGROUND_LIMITS.moduleChars) throw badRequest(`"text" is too large: at most ${PLAYGROUND_LIMITS.moduleChars} characters`);
  const regoVersion = b['rego_version'] ?? 'v1';
  if (regoVersion !== 'v0' && regoVersion !== 'v1') throw badRequest(`"rego_version" must be one of ${REGO_VERSIONS.join(', ')}`);
  let formatted: string;
  try {
    // a v0 module stays v0 (as `opa fmt --v0-compatible` keeps it)
    formatted = formatModule(parseModule(text, { filename: file, regoVersion }), { regoVersion });
  } catch (e) {
    throw stageError(e, 'module', 0);
  }
  return envelope([['text', formatted]], false);
}

