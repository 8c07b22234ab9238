// The Rego abstract syntax tree. Shapes follow OPA's own AST closely so that the
// JSON form served by GET /v1/policies (see json-ast.ts) is a direct mapping, and so
// that the compiler can follow OPA's rules step by step.

export interface Location {
  file: string;
  row: number; // 1-based
  col: number; // 1-based, in characters
  /** The source text the node spans. */
  text: string;
}

// ---- Terms -----------------------------------------------------------------

export type Term =
  | NullTerm
  | BooleanTerm
  | NumberTerm
  | StringTerm
  | VarTerm
  | RefTerm
  | ArrayTerm
  | ObjectTerm
  | SetTerm
  | CallTerm
  | ArrayComprehensionTerm
  | SetComprehensionTerm
  | ObjectComprehensionTerm;

interface TermBase {
  location?: Location;
}

export interface NullTerm extends TermBase {
  type: 'null';
}
export interface BooleanTerm extends TermBase {
  type: 'boolean';
  value: boolean;
}
/** `value` is the literal exactly as written (a JSON number), e.g. "1e400" or "0.1". */
export interface NumberTerm extends TermBase {
  type: 'number';
  value: string;
}
export interface StringTerm extends TermBase {
  type: 'string';
  value: string;
}
/** Wildcards `_` are given unique names `$0`, `$1`, ... by the parser, as OPA does. */
export interface VarTerm extends TermBase {
  type: 'var';
  value: string;
}
/**
 * A reference: the head is a var (`input`, `data`, a local) or, for refs over
 * composite/call terms (`[1,2][0]`, `f(x).y`), any term. Every later element is a
 * term: `a.b` gives a string term "b", `a[x]` gives whatever term x is.
 */
export interface RefTerm extends TermBase {
  type: 'ref';
  value: Term[];
}
export interface ArrayTerm extends TermBase {
  type: 'array';
  value: Term[];
}
export interface ObjectTerm extends TermBase {
  type: 'object';
  value: [Term, Term][];
}
export interface SetTerm extends TermBase {
  type: 'set';
  value: Term[];
}
/** A call: `value[0]` is the operator (a ref term, e.g. data.a.f or a builtin name as a ref of vars/strings), the rest are arguments. */
export interface CallTerm extends TermBase {
  type: 'call';
  value: Term[];
  /**
   * Set when the call is a template string as written (`$"a {x}"`): the parser turns it
   * into `internal.template_string([...])` for the compiler and keeps the written form
   * for the formatter and the JSON AST.
   */
  template?: TemplateString;
}

/**
 * A template string as OPA's AST holds it: constant parts (the literal text, and scalars
 * written alone in braces) as terms, and each other `{...}` as an expression.
 */
export interface TemplateString {
  multiLine: boolean;
  parts: (Term | Expr)[];
}
export interface ArrayComprehensionTerm extends TermBase {
  type: 'arraycomprehension';
  value: { term: Term; body: Body };
}
export interface SetComprehensionTerm extends TermBase {
  type: 'setcomprehension';
  value: { term: Term; body: Body };
}
export interface ObjectComprehensionTerm extends TermBase {
  type: 'objectcomprehension';
  value: { key: Term; value: Term; body: Body };
}

// ---- Expressions -------------------------------------------------------------

/** `some x, y` (vars only) or `some k, v in xs` (a single call term to internal.member_2/3). */
export interface SomeDecl {
  type: 'somedecl';
  symbols: Term[];
  location?: Location;
}

/** `every k, v in domain { body }` */
export interface Every {
  type: 'every';
  key: Term | null;
  value: Term;
  domain: Term;
  body: Body;
  location?: Location;
}

export interface With {
  target: Term; // a ref: input..., data..., or a function/builtin ref
  value: Term;
  location?: Location;
}

/**
 * One expression of a body. `terms` is:
 *   - a single Term (e.g. `x`, `input.allowed`, `f(x)` as a call term is *not* used here:
 *     calls in expression position are an array, as OPA does),
 *   - an array [operator, ...args] for a call (`eq`, `assign`, `equal`, `plus`, `data.f`...),
 *   - a SomeDecl or an Every.
 */
export interface Expr {
  index: number;
  negated?: boolean;
  generated?: boolean;
  /**
   * The body of a `not { ... }` block (OPA 1.17, with `import future.keywords.not`). Such an
   * expression holds when the body has no solution; its `terms` are the equivalent
   * `[true | body] == []` that the compiler and evaluators read (the body's own vars stay
   * local to it, outer ones are read), and fmt and the JSON AST write the block.
   */
  notBlock?: Body;
  terms: Term | Term[] | SomeDecl | Every;
  with?: With[];
  location?: Location;
}

export type Body = Expr[];

// ---- Rules, modules ----------------------------------------------------------

export interface Head {
  /**
   * The rule name as OPA sets it (`p` for `p := 1`, `p[x] { }`, `f(x)`); absent for
   * general ref heads such as `a.b.c := 1` or `p[x] if ...` without a value.
   */
  name?: string;
  /** The full rule reference, e.g. [var a, string b, var x, string c] for `a.b[x].c`. */
  ref: Term[];
  /** Function arguments, when the rule is a function. */
  args?: Term[];
  /** Key for partial set (`contains`) and `p[k] = v` style partial object rules (v0). */
  key?: Term;
  /** Value; absent only for partial set rules. `p if ...` gets the constant true. */
  value?: Term;
  /** Whether the head used `:=`. */
  assign?: boolean;
  location?: Location;
}

export interface Rule {
  default?: boolean;
  head: Head;
  body: Body;
  else?: Rule;
  /** The annotations (METADATA blocks) directly above the rule. */
  annotations?: Annotations[];
  location?: Location;
}

export interface Import {
  path: RefTerm;
  alias?: string;
  location?: Location;
}

export interface Package {
  /** As in OPA: first element is var `data`, then string terms. */
  path: Term[];
  location?: Location;
}

export interface Annotations {
  scope: 'package' | 'rule' | 'document' | 'subpackages';
  title?: string;
  description?: string;
  organizations?: string[];
  related_resources?: { ref: string; description?: string }[];
  authors?: { name?: string; email?: string }[];
  schemas?: { path?: unknown; schema?: unknown; definition?: unknown }[];
  entrypoint?: boolean;
  /** Data filtering (OPA 1.9+): unknowns and mask rule of a filter rule. */
  compile?: { unknowns?: string[]; mask_rule?: string };
  custom?: Record<string, unknown>;
  location?: Location;
}

export interface Comment {
  text: string; // without the leading '#'
  location?: Location;
}

export type RegoVersion = 'v0' | 'v1';

export interface Module {
  package: Package;
  imports: Import[];
  rules: Rule[];
  annotations: Annotations[];
  comments: Comment[];
  regoVersion: RegoVersion;
}

// ---- Errors ----------------------------------------------------------------

export interface RegoErrorDetail {
  code: string; // rego_parse_error, rego_compile_error, ...
  message: string;
  location?: { file: string; row: number; col: number };
  details?: unknown;
}
