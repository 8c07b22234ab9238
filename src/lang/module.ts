// The public parse entry points: modules, queries, terms and refs. Assembles a Module
// from statements as OPA's parseModule does (package first, bodies turned into rules,
// v1 keyword checks, annotations), and guarantees that only RegoParseError escapes.

import type { Annotations, Body, Comment, Import, Module, Package, RegoErrorDetail, Rule, Term, RefTerm } from './ast.js';
import { parseAnnotationBlocks } from './annotations.js';
import { PARSE_ERROR, RegoParseError } from './errors.js';
import { tokenize } from './lexer.js';
import { valueName } from './parser.js';
import { FUTURE_KEYWORDS, ParseAbort } from './cursor.js';
import { StatementParser, trueExpr, type Statement } from './statements.js';
import { copyTerm, isGround } from './terms.js';

export interface ParseOptions {
  filename?: string;
  regoVersion?: 'v0' | 'v1';
}

function detail(file: string, message: string, row: number, col: number): RegoErrorDetail {
  return { code: PARSE_ERROR, message, location: { file, row, col } };
}

/** Runs `fn`, turning anything unexpected (including stack overflow) into a RegoParseError. */
function guarded<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof RegoParseError) throw e;
    if (e instanceof ParseAbort) throw new RegoParseError([detail(file, e.message, e.row, e.col)]);
    const msg = e instanceof RangeError ? 'max parsing recursion depth reached' : `internal parser error: ${String((e as Error)?.message ?? e)}`;
    throw new RegoParseError([detail(file, msg, 1, 1)]);
  }
}

function newParser(text: string, file: string, version: 'v0' | 'v1'): StatementParser {
  const p = new StatementParser(text, file, tokenize(text));
  p.regoVersion = version;
  if (version === 'v1') for (const kw of FUTURE_KEYWORDS) p.future.add(kw);
  return p;
}

export function parseModule(text: string, opts: ParseOptions = {}): Module {
  const file = opts.filename ?? '';
  const version = opts.regoVersion ?? 'v1';
  return guarded(file, () => buildModule(text, file, version));
}

function buildModule(text: string, file: string, version: 'v0' | 'v1'): Module {
  const p = newParser(text, file, version);
  const { stmts, error } = p.parseStatements();
  const comments: Comment[] = p.ts.comments.map((c) => ({
    text: c.image.slice(1),
    location: { file, row: c.startLine!, col: c.startColumn!, text: c.image },
  }));
  const errors: RegoErrorDetail[] = [];
  if (error) {
    errors.push(detail(file, error.message, error.row, error.col));
    throw new RegoParseError(errors);
  }
  const blocks = parseAnnotationBlocks(comments, errors);
  if (stmts.length === 0) {
    throw new RegoParseError([{ code: PARSE_ERROR, message: 'empty module', location: { file, row: 0, col: 0 } }]);
  }
  let pkg: Package | undefined;
  const first = stmts[0]!;
  if (first.kind === 'package') pkg = first.pkg;
  else {
    const loc = stmtLoc(first);
    errors.push(detail(file, 'package expected', loc.row, loc.col));
  }
  const imports: Import[] = [];
  const rules: Rule[] = [];
  // Statement order, with bodies replaced by the rules made from them (for annotations).
  const nodes: ({ kind: 'package'; pkg: Package } | { kind: 'import'; imp: Import } | { kind: 'rule'; rule: Rule })[] = [];
  if (pkg) nodes.push({ kind: 'package', pkg });
  let regoVersion = version;
  for (const st of stmts.slice(1)) {
    switch (st.kind) {
      case 'import':
        imports.push(st.imp);
        nodes.push({ kind: 'import', imp: st.imp });
        break;
      case 'rules':
        for (const r of st.rules) {
          rules.push(r);
          nodes.push({ kind: 'rule', rule: r });
        }
        break;
      case 'body': {
        const res = ruleFromBody(st.body);
        if (typeof res === 'string') {
          const loc = st.body[0]!.location!;
          errors.push(detail(file, res, loc.row, loc.col));
          continue;
        }
        p.facts.set(res, { usesIf: false, usesContains: false, generatedBody: true });
        rules.push(res);
        nodes.push({ kind: 'rule', rule: res });
        break;
      }
      case 'package': {
        const loc = st.pkg.location!;
        errors.push(detail(file, 'unexpected package', loc.row, loc.col));
        break;
      }
    }
  }
  if (version === 'v0' && p.importedRegoV1) regoVersion = 'v0';
  if (version === 'v1' || p.importedRegoV1) {
    const askedV1 = imports.some((i) => i.path.value[0]?.type === 'var' && i.path.value[0].value === 'rego');
    for (const rule of rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) checkRegoV1(r, p, errors, file, !askedV1);
    }
  }
  if (errors.length > 0) throw new RegoParseError(errors);

  // Attach each annotation block to the statement that follows it.
  const annotations: Annotations[] = [];
  for (const b of blocks) {
    const a = b.annotations;
    const node = nodes.find((n) => nodeRow(n) > b.endRow);
    annotations.push(a);
    const scope = a.scope as Annotations['scope'] | undefined;
    const loc = a.location!;
    if (!node || node.kind === 'import') {
      const want = scope === 'package' || scope === 'subpackages' ? 'package' : 'rule';
      const have = node ? ' (have import)' : '';
      errors.push(detail(file, `annotation scope '${scope ?? 'rule'}' must be applied to ${want}${have}`, loc.row, loc.col));
      continue;
    }
    if (node.kind === 'package') {
      if (!scope) a.scope = 'package';
      else if (scope !== 'package' && scope !== 'subpackages') {
        errors.push(detail(file, `annotation scope '${scope}' must be applied to rule (have package)`, loc.row, loc.col));
      }
    } else {
      if (!scope) a.scope = 'rule';
      else if (scope !== 'rule' && scope !== 'document') {
        errors.push(detail(file, `annotation scope '${scope}' must be applied to package (have rule)`, loc.row, loc.col));
      }
      (node.rule.annotations ??= []).push(a);
    }
  }
  if (errors.length > 0) throw new RegoParseError(errors);

  return {
    package: pkg!,
    imports,
    rules,
    annotations,
    comments,
    regoVersion,
  };
}

function nodeRow(n: { kind: 'package'; pkg: Package } | { kind: 'import'; imp: Import } | { kind: 'rule'; rule: Rule }): number {
  const loc = n.kind === 'package' ? n.pkg.location : n.kind === 'import' ? n.imp.location : n.rule.location;
  return loc?.row ?? 0;
}

function stmtLoc(s: Statement): { row: number; col: number } {
  switch (s.kind) {
    case 'package':
      return s.pkg.location!;
    case 'import':
      return s.imp.location!;
    case 'rules':
      return s.rules[0]!.location!;
    case 'body':
      return s.body[0]!.location!;
  }
}

// A module read as v1 only because v1 is the default may be an OPA 0.x policy: say how to
// read it as one (with `import rego.v1` the author asked for v1, so the flag would not help).
const V0_HINT = ' (hint: a Rego v0 policy? parse it with --v0-compatible)';

function checkRegoV1(rule: Rule, p: StatementParser, errors: RegoErrorDetail[], file: string, hintV0: boolean): void {
  const f = p.facts.get(rule);
  if (!f) return;
  const loc = rule.location!;
  const hint = hintV0 ? V0_HINT : '';
  if (!f.generatedBody && !f.usesIf) {
    const what = rule.head.args ? 'function' : 'rule';
    errors.push(detail(file, `\`if\` keyword is required before ${what} body${hint}`, loc.row, loc.col));
  }
  if (rule.head.key && !rule.head.value && !f.usesContains && !rule.default) {
    errors.push(detail(file, `\`contains\` keyword is required for partial set rules${hint}`, loc.row, loc.col));
  }
}

/** OPA's ParseRuleFromBody: a lone statement such as `p := 1`, `p[x] = y` or `f(x) = y`. */
function ruleFromBody(body: Body): Rule | string {
  if (body.length !== 1) return 'multiple expressions cannot be used for rule head';
  const expr = body[0]!;
  const loc = expr.location!;
  if (expr.with) return 'expressions using with keyword cannot be used for rule head';
  if (expr.negated) return 'negated expressions cannot be used for rule head';
  const terms = expr.terms;
  if (!Array.isArray(terms)) {
    if (terms.type === 'somedecl') return 'some declarations cannot be used for rule head';
    if (terms.type === 'every') return 'expression cannot be used for rule head';
    if (terms.type === 'ref') {
      const ref = terms.value;
      if (ref.length === 1) return 'refs cannot be used for rule head';
      if (ref[0]!.type !== 'var') return `invalid rule head: ${valueName(ref[0]!)}`;
      if (ref.length !== 2) return 'refs cannot be used for rule';
      return {
        head: { name: (ref[0] as { value: string }).value, ref: [ref[0]!], key: ref[1], location: loc },
        body: [trueExpr(loc)],
        location: loc,
      };
    }
    return `${valueName(terms)} cannot be used for rule name`;
  }
  const op = terms[0]!;
  const opName = op.type === 'ref' && op.value.length === 1 && op.value[0]!.type === 'var' ? op.value[0]!.value : '';
  if ((opName === 'assign' || opName === 'eq') && terms.length === 3) {
    const lhs = terms[1]!;
    const rhs = terms[2]!;
    const assign = opName === 'assign';
    const complete = completeRule(lhs, rhs, loc);
    if (typeof complete !== 'string') {
      if (assign) complete.head.assign = true;
      return complete;
    }
    if (assign) {
      if (lhs.type === 'call') {
        const fn = functionRule(lhs, rhs, loc);
        if (typeof fn !== 'string') fn.head.assign = true;
        return fn;
      }
      if (lhs.type === 'ref') return 'partial rules must use = operator (not := operator)';
      return `${valueName(lhs)} cannot be used for rule name`;
    }
    if (lhs.type === 'call') return functionRule(lhs, rhs, loc);
    if (lhs.type !== 'ref' || lhs.value.length < 2) return `${valueName(lhs)} cannot be used as rule name`;
    if (lhs.value[0]!.type !== 'var') return `${valueName(lhs.value[0]!)}s cannot be used as rule name`;
    const ref = lhs.value;
    const head: Rule['head'] = { ref, value: rhs, location: loc };
    const first = ref[0]!;
    if (ref.length === 2 && first.type === 'var') {
      head.name = first.value;
      head.key = ref[1];
    }
    return { head, body: [trueExpr(loc)], location: loc };
  }
  if (terms.length <= 1) return 'rule argument list must take at least one argument';
  if (op.type !== 'ref' || op.value[0]!.type !== 'var') return 'expression cannot be used for rule head';
  const head: Rule['head'] = { ref: op.value, args: terms.slice(1), value: { type: 'boolean', value: true, location: op.location }, location: op.location };
  if (op.value.length === 1) head.name = op.value[0]!.value as string;
  return { head, body: [trueExpr(op.location!)], location: op.location };
}

/** `f(x) = y` / `f(x) := y` without a body. */
function functionRule(lhs: Term & { type: 'call' }, rhs: Term, loc: Rule['location']): Rule | string {
  const fop = lhs.value[0]!;
  if (fop.type !== 'ref') return `${valueName(fop)}s cannot be used in function signature`;
  const first = fop.value[0]!;
  if (first.type !== 'var') return `${valueName(first)}s cannot be used in function signature`;
  const head: Rule['head'] = { ref: fop.value, args: lhs.value.slice(1), value: rhs, location: loc };
  if (fop.value.length === 1) head.name = first.value;
  return { head, body: [trueExpr(loc!)], location: loc };
}

function completeRule(lhs: Term, rhs: Term, loc: Rule['location']): Rule | string {
  let head: Rule['head'];
  if (lhs.type === 'var') head = { name: lhs.value, ref: [lhs], value: rhs, location: loc };
  else if (lhs.type === 'ref') {
    const r = lhs.value;
    if (r[0]!.type !== 'var') return `invalid rule head: ${valueName(r[0]!)}`;
    if (r.length > 1 && !isGround(r[r.length - 1]!)) return 'ref not ground';
    head = { ref: r, value: rhs, location: loc };
    if (r.length === 1) head.name = r[0]!.value as string;
  } else return `${valueName(lhs)} cannot be used for rule name`;
  return { head, body: [trueExpr(loc!)], location: loc };
}

// ---- queries, terms, refs ------------------------------------------------------

export function parseQuery(text: string, opts: ParseOptions = {}): Body {
  const file = opts.filename ?? '';
  return guarded(file, () => {
    const p = newParser(text, file, opts.regoVersion ?? 'v1');
    const body: Body = [];
    while (p.tk() !== 0 /* EOF */) {
      for (const e of p.parseQuery(true, 0)) {
        e.index = body.length;
        body.push(e);
      }
    }
    if (body.length === 0) throw new RegoParseError([detail(file, 'empty query', 1, 1)]);
    return body;
  });
}

export function parseTerm(text: string, opts: ParseOptions = {}): Term {
  const file = opts.filename ?? '';
  const body = parseQuery(text, opts);
  const only = body.length === 1 ? body[0]!.terms : undefined;
  if (!only || Array.isArray(only) || only.type === 'somedecl' || only.type === 'every' || body[0]!.negated || body[0]!.with) {
    throw new RegoParseError([detail(file, 'expected exactly one term', 1, 1)]);
  }
  return only;
}

export function parseRef(text: string, opts: ParseOptions = {}): RefTerm {
  const t = parseTerm(text, opts);
  if (t.type === 'ref') return t;
  throw new RegoParseError([detail(opts.filename ?? '', `expected ref but got ${valueName(t)}`, 1, 1)]);
}

export { copyTerm };
