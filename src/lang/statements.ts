// Statement-level parsing: package, import, rules (heads, bodies, else chains, v0
// multi-body rules). Mirrors OPA's Parser.Parse loop: each statement is tried as a
// package, an import, a rule, and finally as a query body (which parseModule later
// turns into a rule, e.g. `p := 1`). The first syntax error stops the loop, as in OPA.

import type { Body, Expr, Head, Import, Location, Package, RefTerm, Rule, Term } from './ast.js';
import { K } from './lexer.js';
import { BodyParser } from './body.js';
import { refName, valueName } from './parser.js';
import { FUTURE_KEYWORDS, IMPORTABLE_KEYWORDS, ParseAbort } from './cursor.js';
import { copyHead, copyTerm, isGround, refString } from './terms.js';
import { forEachChildTerm } from './visit.js';

export type Statement =
  | { kind: 'package'; pkg: Package }
  | { kind: 'import'; imp: Import }
  | { kind: 'rules'; rules: Rule[] }
  | { kind: 'body'; body: Body };

/** Facts about a rule's source that OPA keeps in unexported fields (for the v1 checks). */
export interface RuleFacts {
  usesIf: boolean;
  usesContains: boolean;
  generatedBody: boolean;
}

const SKIP = new ParseAbort('', 0, 0);
const PREC_KINDS = new Set<K>([K.Add, K.Sub, K.Mul, K.Quo, K.Rem, K.And, K.Or, K.Equal, K.Neq, K.Gt, K.Gte, K.Lt, K.Lte]);
const INFIX_KINDS = new Set<K>([K.Add, K.Sub, K.Mul, K.Quo, K.Rem, K.And, K.Or, K.Equal, K.Neq, K.Gt, K.Gte, K.Lt, K.Lte]);

export class StatementParser extends BodyParser {
  readonly facts = new WeakMap<Rule, RuleFacts>();
  regoVersion: 'v0' | 'v1' = 'v1';

  private fact(rule: Rule): RuleFacts {
    let f = this.facts.get(rule);
    if (!f) {
      f = { usesIf: false, usesContains: false, generatedBody: false };
      this.facts.set(rule, f);
    }
    return f;
  }

  /** All statements, stopping at the first syntax error (returned alongside). */
  parseStatements(): { stmts: Statement[]; error?: ParseAbort } {
    const stmts: Statement[] = [];
    try {
      while (this.tk() !== K.EOF) {
        const s = this.save();
        if (this.isKw('package')) {
          const pkg = this.parsePackage();
          if (pkg) {
            stmts.push({ kind: 'package', pkg });
            continue;
          }
          this.restore(s);
        }
        if (this.isKw('import')) {
          const imp = this.parseImport();
          if (imp) {
            stmts.push({ kind: 'import', imp });
            continue;
          }
          this.restore(s);
        }
        const rules = this.parseRules();
        if (rules) {
          stmts.push({ kind: 'rules', rules });
          continue;
        }
        this.restore(s);
        stmts.push({ kind: 'body', body: this.parseQuery(true, K.EOF) });
      }
    } catch (e) {
      if (e instanceof ParseAbort) return { stmts, error: e };
      throw e;
    }
    return { stmts };
  }

  parsePackage(): Package | undefined {
    const from = this.pos;
    this.next();
    if ((this.tk() === K.Dot || this.tk() === K.LBrack) && this.adjacent(this.pos)) return undefined; // `package.x` is a ref
    if (this.tk() !== K.Ident) this.illegal();
    const term = this.parseTerm();
    let path: Term[];
    if (term.type === 'var') {
      path = [
        { type: 'var', value: 'data', location: term.location },
        { type: 'string', value: term.value, location: term.location },
      ];
    } else if (term.type === 'ref') {
      const v = term.value;
      const first = v[0]!;
      if (first.type !== 'var') this.errorLoc(first.location, `unexpected ${valueName(first)} token: expecting var`);
      path = [
        { type: 'var', value: 'data', location: first.location },
        { type: 'string', value: first.value, location: first.location },
      ];
      for (let i = 1; i < v.length; i++) {
        const e = v[i]!;
        if (e.type !== 'string') this.errorLoc(e.location, `unexpected ${valueName(e)} token: expecting string`);
        path.push(e);
      }
    } else {
      this.illegal();
    }
    return { path, location: this.span(from) };
  }

  parseImport(): Import | undefined {
    const from = this.pos;
    const loc = this.loc();
    this.next();
    if ((this.tk() === K.Dot || this.tk() === K.LBrack) && this.adjacent(this.pos)) return undefined;
    if (this.tk() !== K.Ident) this.illegal();
    // Future keywords are plain names inside import paths (`import future.keywords.in`).
    const saved = [...this.future];
    this.future.clear();
    let term: Term;
    try {
      term = this.parseTerm();
    } finally {
      for (const kw of saved) this.future.add(kw);
    }
    let path: RefTerm | undefined;
    if (term.type === 'var') path = { type: 'ref', value: [term], location: term.location };
    else if (term.type === 'ref') {
      for (let i = 1; i < term.value.length; i++) {
        const e = term.value[i]!;
        if (e.type !== 'string') this.errorLoc(e.location, `unexpected ${valueName(e)} token: expecting string`);
      }
      path = term;
    }
    if (!path) this.errorAt(this.pos, 'expected path');
    const root = path.value[0]!;
    const rootName = root.type === 'var' ? root.value : '';
    if (!['data', 'input', 'future', 'rego'].includes(rootName)) {
      this.errorLoc(
        path.location,
        `unexpected import path, must begin with one of: {data, future, input, rego}, got: ${root.type === 'var' ? root.value : valueName(root)} (hint: if this is unexpected, try updating OPA)`,
      );
    }
    const imp: Import = { path, location: loc };
    if (this.isKw('as')) {
      this.next();
      if (this.tk() !== K.Ident) this.illegal('expected var');
      const alias = this.parseTerm();
      if (alias.type !== 'var') this.illegal('expected var');
      imp.alias = alias.value;
    } else {
      const r = path.value;
      const last = r[r.length - 1]!;
      if (r.length === 1 || rootName !== 'future') {
        const name = last.type === 'var' || last.type === 'string' ? last.value : '';
        if (this.isVersionKeyword(name)) {
          this.errorLoc(
            last.location,
            `unexpected import path, must not end with a keyword, got: ${name} (hint: import a different path or use an alias)`,
          );
        }
      }
    }
    imp.location = this.span(from);
    if (rootName === 'rego') this.regoV1Import(imp);
    if (rootName === 'future') this.futureImport(imp);
    return imp;
  }

  private isVersionKeyword(name: string): boolean {
    if (['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'null', 'true', 'false'].includes(name)) return true;
    return this.regoVersion === 'v1' && FUTURE_KEYWORDS.includes(name);
  }

  private futureImport(imp: Import): void {
    const path = imp.path.value;
    const second = path[1];
    if (path.length === 1 || second?.type !== 'string' || second.value !== 'keywords') {
      this.errorLoc(imp.path.location, 'invalid import, must be `future.keywords`');
    }
    if (imp.alias) this.errorLoc(imp.path.location, '`future` imports cannot be aliased');
    if (path.length === 2) {
      for (const kw of FUTURE_KEYWORDS) this.future.add(kw);
      this.notBlocks = true;
      return;
    }
    const kw = path[2]!;
    if (path.length > 3 || kw.type !== 'string') {
      this.errorLoc(imp.path.location, 'invalid import, must be `future.keywords.x`, e.g. `import future.keywords.in`');
    }
    if (!IMPORTABLE_KEYWORDS.includes(kw.value)) {
      this.errorLoc(imp.path.location, `unexpected keyword, must be one of [${IMPORTABLE_KEYWORDS.join(' ')}]`);
    }
    if (FUTURE_KEYWORDS.includes(kw.value)) this.future.add(kw.value);
    if (kw.value === 'not') this.notBlocks = true;
  }

  private regoV1Import(imp: Import): void {
    const path = imp.path.value;
    const second = path[1];
    if (path.length !== 2 || second?.type !== 'string' || second.value !== 'v1') {
      this.errorLoc(imp.path.location, `invalid import \`${refString(path)}\`, must be \`rego.v1\``);
    }
    if (this.regoVersion === 'v1') return;
    if (imp.alias) this.errorLoc(imp.path.location, '`rego` imports cannot be aliased');
    for (const kw of FUTURE_KEYWORDS) this.future.add(kw);
    this.importedRegoV1 = true;
  }
  importedRegoV1 = false;

  // ---- rules -------------------------------------------------------------------

  parseRules(): Rule[] | undefined {
    const from = this.pos;
    let isDefault = false;
    if (this.isKw('default') && !this.keywordAsRef()) {
      this.next();
      isDefault = true;
    }
    if (this.tk() !== K.Ident || (this.isKeywordAt() && !this.keywordAsRef())) return undefined;
    const parsed = this.parseHead(isDefault);
    if (!parsed) return undefined;
    const { head, usesContains } = parsed;
    const rule: Rule = { head, body: [], location: this.loc(from) };
    const facts = this.fact(rule);
    facts.usesContains = usesContains;
    if (isDefault) {
      rule.default = true;
      this.validateDefault(rule);
      rule.location = this.span(from);
      rule.body = [trueExpr(rule.location)];
      facts.generatedBody = true;
      return [rule];
    }

    const hasIf = this.isKw('if');
    const ref = head.ref;
    // `p[x] if ...` is a single-value rule p[x]; `p[x] { }` (v0) is a multi-value rule p.
    if (hasIf && !usesContains && ref.length === 2) {
      const v = ref[1]!;
      if ((!isGround(v) || v.type === 'ref') && !head.args) head.key = ref[1];
      if (!head.value) head.value = { type: 'boolean', value: true, location: head.location };
      else if (ref[0]!.type === 'var') head.name = ref[0]!.value;
    }
    if (!hasIf && !usesContains && !head.args && ref.length === 2) {
      const v = ref[0]!;
      if (v.type !== 'var') return undefined;
      head.name = v.value;
      head.key = ref[1];
      if (!head.value) head.ref = ref.slice(0, 1);
    }

    if (hasIf) {
      facts.usesIf = true;
      this.next();
      const s = this.save();
      const fast = this.tk() === K.LBrace ? this.tryBraceBody() : undefined;
      let expr: Expr | undefined;
      try {
        if (fast) throw SKIP;
        expr = this.parseLiteral();
        const t = expr.terms;
        if (!Array.isArray(t) && t.type === 'set') expr = undefined; // `if { ... }` is a body, never a set
      } catch (e) {
        if (!(e instanceof ParseAbort)) throw e;
        expr = undefined;
      }
      if (fast) rule.body = fast;
      else if (expr) rule.body = [expr];
      else {
        this.restore(s);
        this.next(); // OPA steps over the token it expects to be `{`
        rule.body = this.parseBody(K.RBrace);
        this.next();
      }
    } else if (this.tk() === K.LBrace) {
      this.next();
      rule.body = this.parseBody(K.RBrace);
      this.next();
    } else if (usesContains) {
      rule.body = [trueExpr(rule.location!)];
      facts.generatedBody = true;
      rule.location = head.location;
      return [rule];
    } else {
      return undefined;
    }

    if (this.isKw('else') && !this.keywordAsRef()) {
      // as OPA's Ref.IsGround: the rule name itself is a var, only what follows counts
      if (ref.length > 1 && !ref.slice(1).every(isGround)) this.errorAt(this.pos, 'else keyword cannot be used on rules with variables in head');
      if (head.key) this.errorAt(this.pos, 'else keyword cannot be used on multi-value rules');
      rule.else = this.parseElse(head);
    }
    rule.location = this.span(from);

    const rules = [rule];
    while (this.tk() === K.LBrace) {
      if (rule.else) this.errorAt(this.pos, 'expected else keyword');
      const bodyFrom = this.pos;
      this.next();
      const body = this.parseBody(K.RBrace);
      this.next();
      const loc = this.span(bodyFrom);
      const next: Rule = { head: copyHead(head, loc), body, location: loc };
      this.renameWildcardArgs(next.head);
      const f = this.fact(next);
      f.usesIf = facts.usesIf;
      f.usesContains = facts.usesContains;
      rules.push(next);
    }
    return rules;
  }

  /**
   * `if { ... }`: OPA first tries the braces as a literal (a set, object or comprehension
   * expression) and only then as a body. Parsing a body first is much cheaper; it gives
   * the same tree unless the braces could be a comprehension/object (`{x | ...}`,
   * `{k: ...}`, `{}`) or the closing brace is followed by more of an expression. In
   * those cases this returns undefined and the caller follows OPA's order.
   */
  private tryBraceBody(): Body | undefined {
    const s = this.save();
    const first = this.pos + 1;
    const fk = this.ts.kind[first];
    if (fk === K.RBrace) return undefined;
    const startsStatement = this.isKw('not', first) || this.isKw('some', first) || this.isKw('every', first);
    if (!startsStatement) {
      // Would `{` term `|` or `{` term `:` follow? Then it may be a comprehension or an object.
      this.pos = first;
      let ambiguous = true;
      try {
        this.parseTerm();
        ambiguous = this.tk() === K.Or || this.tk() === K.Colon;
      } catch (e) {
        if (!(e instanceof ParseAbort)) throw e;
      }
      this.restore(s);
      if (ambiguous) return undefined;
    }
    let body: Body;
    try {
      this.next();
      body = this.parseBody(K.RBrace);
      this.next();
    } catch (e) {
      if (!(e instanceof ParseAbort)) throw e;
      this.restore(s);
      return undefined;
    }
    const k = this.tk();
    const continues =
      (PREC_KINDS.has(k) || k === K.Assign || k === K.Unify || this.isKw('with') || this.isKw('in') || k === K.Comma) ||
      ((k === K.Dot || k === K.LBrack || k === K.LParen) && this.adjacent(this.pos));
    if (continues) {
      this.restore(s);
      return undefined;
    }
    return body;
  }

  private renameWildcardArgs(head: Head): void {
    if (!head.args) return;
    head.args = head.args.map((a) => (a.type === 'var' && a.value.startsWith('$') ? { ...a, value: this.genWildcard() } : a));
  }

  private parseHead(isDefault: boolean): { head: Head; usesContains: boolean } | undefined {
    const from = this.pos;
    const start = this.ts.start[from]!;
    const v = this.parseVar();
    this.next();
    // Operators glued to the name (`p+1`) are errors; whitespace may precede `[`, `.` or `(`.
    if (this.adjacent(this.pos) && INFIX_KINDS.has(this.tk())) this.illegal();
    let term: Term = v;
    if (this.tk() === K.LParen || this.tk() === K.Dot || this.tk() === K.LBrack) term = this.parseRef(v, start);
    else if (v.value === 'data' || v.value === 'input') term = { type: 'ref', value: [v], location: v.location };

    let head: Head;
    if (term.type === 'var') head = { name: term.value, ref: [term] };
    else if (term.type === 'ref') head = { ref: term.value };
    else if (term.type === 'call') {
      const op = term.value[0]!;
      let ref: Term[];
      if (op.type === 'var') ref = [op];
      else if (op.type === 'ref') {
        if (op.value[0]!.type !== 'var') this.illegal(`rule head ref ${refString(op.value)} invalid`);
        ref = op.value;
      } else return undefined;
      head = { ref, args: term.value.slice(1) };
      if (ref.length === 1 && ref[0]!.type === 'var') head.name = ref[0]!.value;
    } else return undefined;
    if (head.ref.length === 1 && head.ref[0]!.type === 'var') head.name = head.ref[0]!.value;

    const name = refString(head.ref);
    let usesContains = false;
    if (this.isKw('contains')) {
      if (head.args) this.illegal(`the contains keyword can only be used with multi-value rule definitions (e.g., ${name} contains <VALUE> { ... })`);
      this.next();
      head.key = this.parseTermInfix();
      usesContains = true;
    } else if (this.tk() === K.Unify) {
      this.next();
      head.value = this.parseTermInfix();
    } else if (this.tk() === K.Assign) {
      this.next();
      head.assign = true;
      if (this.tk() === K.EOF) {
        if (head.args) this.illegal(`expected function value term (e.g., ${name}(...) := <VALUE> { ... })`);
        if (isDefault) this.illegal(`expected default rule value term (e.g., default ${name} := <VALUE>)`);
        this.illegal(`expected rule value term (e.g., ${name} := <VALUE> { ... })`);
      }
      head.value = this.parseTermInfix();
    }
    head.location = this.span(from);
    if (!usesContains && !head.value && !head.key && (head.ref.length !== 2 || head.args)) {
      head.value = { type: 'boolean', value: true, location: head.location };
    }
    return { head, usesContains };
  }

  private validateDefault(rule: Rule): void {
    const loc = rule.location;
    const value = rule.head.value;
    if (!value) this.errorLoc(loc, 'illegal default rule (must have a value)');
    const bad = findNonConstant(value);
    if (bad) this.errorLoc(loc, `illegal default rule (value cannot contain ${bad})`);
    if (rule.head.args) {
      const seen = new Set<string>();
      for (const a of rule.head.args) {
        if (a.type !== 'var') this.errorLoc(loc, `illegal default rule (arguments cannot contain ${valueName(a)})`);
        if (seen.has(a.value)) this.errorLoc(loc, `illegal default rule (arguments cannot be repeated ${a.value})`);
        seen.add(a.value);
      }
    }
  }

  private parseElse(head: Head): Rule {
    const from = this.pos;
    const elseLoc = this.loc();
    const rule: Rule = { head: copyHead(head), body: [], location: elseLoc };
    this.renameWildcardArgs(rule.head);
    delete rule.head.assign;
    const facts = this.fact(rule);
    this.next();
    if (this.tk() === K.LBrace || this.isKw('if')) {
      rule.head.value = { type: 'boolean', value: true, location: elseLoc };
    } else if (this.tk() === K.Assign || this.tk() === K.Unify) {
      if (this.tk() === K.Assign) rule.head.assign = true;
      this.next();
      rule.head.value = this.parseTermInfix();
    } else {
      this.illegal('expected else value term or rule body');
    }
    const hasIf = this.isKw('if');
    if (!hasIf && this.tk() !== K.LBrace) {
      rule.location = this.span(from);
      rule.body = [trueExpr(rule.location)];
      facts.generatedBody = true;
      return rule;
    }
    if (hasIf) {
      facts.usesIf = true;
      this.next();
    }
    if (this.tk() === K.LBrace) {
      this.next();
      rule.body = this.parseBody(K.RBrace);
      this.next();
    } else if (this.tk() !== K.EOF) {
      rule.body = [this.parseLiteral()];
    } else {
      this.illegal('rule body expected');
    }
    rule.location = this.span(from);
    if (this.isKw('else') && !this.keywordAsRef()) rule.else = this.parseElse(head);
    return rule;
  }
}

export function trueExpr(loc: Location): Expr {
  return { index: 0, terms: { type: 'boolean', value: true, location: loc }, location: loc };
}

/** The first ref/var/call found outside closures, as OPA's TypeName names it. */
function findNonConstant(t: Term): string | undefined {
  if (t.type === 'ref' || t.type === 'var' || t.type === 'call') return t.type;
  let found: string | undefined;
  forEachChildTerm(t, (x) => (found = findNonConstant(x)) !== undefined);
  return found;
}

export { copyTerm, refName };
