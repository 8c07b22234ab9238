// Writing a whole module: comments before the package, the package, then imports and
// rules in source order (imports sorted within blank-line separated groups, a comment
// on an import's line kept beside it), and trailing comments. Also decides what the
// output syntax allows: `if`/`contains` (v1 or imported), ref heads, keywords that
// must be bracketed in refs, and which v0 imports (`future.keywords`, `rego.v1`) stay.

import type { Body, Comment, Import, Module, Rule, Term } from '../ast.js';
import { writeRules } from './rules.js';
import { writeRef } from './terms.js';
import { writeBody } from './body.js';
import { Writer, commentRow, commentText, type FormatFlags } from './writer.js';

export interface FormatOptions {
  /** Syntax of the output; defaults to the module's own version. */
  regoVersion?: 'v0' | 'v1';
  /** Drop `import rego.v1` and `import future.keywords...` (implied for v0 modules written as v1). */
  dropV0Imports?: boolean;
}

const KEYWORDS_V0 = ['not', 'package', 'import', 'as', 'default', 'else', 'with', 'null', 'true', 'false', 'some'];
const FUTURE = ['contains', 'every', 'if', 'in'];

function importPath(imp: Import): string[] | undefined {
  const parts: string[] = [];
  for (const t of imp.path.value) {
    if (t.type !== 'var' && t.type !== 'string') return undefined;
    parts.push(t.value);
  }
  return parts;
}

function isRegoV1Import(imp: Import): boolean {
  const p = importPath(imp);
  return !!p && p.length === 2 && p[0] === 'rego' && p[1] === 'v1';
}

/** `future.keywords` gives all keywords, `future.keywords.x` gives x. */
function futureKeywords(imp: Import): string[] | undefined {
  const p = importPath(imp);
  if (!p || p[0] !== 'future' || imp.path.value[0]!.type !== 'var' || p[1] !== 'keywords') return undefined;
  return p.length === 2 ? FUTURE : p.slice(2);
}

function ruleTree(rules: Rule[]): Rule[] {
  const out: Rule[] = [];
  for (const r of rules) for (let x: Rule | undefined = r; x; x = x.else) out.push(x);
  return out;
}

function flagsFor(module: Module, imports: Import[], regoV1: boolean): FormatFlags {
  let ifs = regoV1;
  let contains = regoV1;
  const keywords = new Set(regoV1 ? [...KEYWORDS_V0, ...FUTURE] : KEYWORDS_V0);
  for (const imp of imports) {
    if (isRegoV1Import(imp)) ifs = contains = true;
    const kws = futureKeywords(imp);
    if (!kws) continue;
    if (kws.includes('if')) ifs = true;
    if (kws.includes('contains')) contains = true;
    // Only a named keyword import makes the name a keyword in refs (as opa fmt).
    if (kws.length === 1) keywords.add(kws[0]!);
  }
  const refHeads = ruleTree(module.rules).some((r) => r.head.ref.length > 2 || (r.head.ref.length === 2 && !!r.head.key && !r.head.value));
  return { regoV1, ifs, contains, refHeads, keywords };
}

/** The imports that stay in the output, as opa fmt keeps them. */
function keptImports(module: Module, regoV1: boolean, drop: boolean): Import[] {
  let imports = module.imports;
  if (regoV1 && drop) imports = imports.filter((i) => !isRegoV1Import(i));
  const v1Imported = imports.some(isRegoV1Import);
  // `future.keywords.not` (and `and`, `or`) select behaviour v1 does not imply: they stay
  if ((regoV1 || v1Imported) && (drop || v1Imported)) imports = imports.filter((i) => !futureKeywords(i)?.every((k) => FUTURE.includes(k)));
  return imports;
}

function locCmp(a: { location?: { row: number; col: number } }, b: { location?: { row: number; col: number } }): number {
  const al = a.location;
  const bl = b.location;
  if (!al || !bl) return !al && !bl ? 0 : !al ? -1 : 1;
  return al.row - bl.row || al.col - bl.col;
}

export function formatModule(module: Module, opts: FormatOptions = {}): string {
  const version = opts.regoVersion ?? module.regoVersion;
  const regoV1 = version === 'v1';
  const drop = regoV1 && (opts.dropV0Imports === true || module.regoVersion === 'v0');
  const imports = keptImports(module, regoV1, drop);
  const comments: Comment[] = [...module.comments].sort(locCmp);
  const w = new Writer(flagsFor(module, imports, regoV1), comments);

  writePackage(w, module.package.path, module.package.location?.row ?? -1);
  const others: (Import | Rule)[] = [...imports, ...module.rules].sort(locCmp);
  let i = 0;
  while (i < others.length) {
    const imps: Import[] = [];
    while (i < others.length && !('head' in others[i]!)) imps.push(others[i++] as Import);
    writeImports(w, imps);
    const rules: Rule[] = [];
    while (i < others.length && 'head' in others[i]!) rules.push(others[i++] as Rule);
    writeRules(w, rules);
  }
  for (const c of w.comments) w.writeLine(commentText(c));
  w.comments = [];
  return w.text().replace(/\n*$/, '\n');
}

function writePackage(w: Writer, path: Term[], row: number): void {
  w.insertComments(row);
  w.startLine();
  w.write('package ');
  const first = path[1];
  const head: Term = first && first.type === 'string' ? { type: 'var', value: first.value } : { type: 'var', value: '' };
  writeRef(w, [head, ...path.slice(2)]);
  w.blankLine();
}

function writeImports(w: Writer, imports: Import[]): void {
  if (imports.length === 0) return;
  // A comment on an import's own line stays beside it, even after sorting.
  const beside = new Map<Import, Comment>();
  w.comments = w.comments.filter((c) => {
    const imp = imports.find((i) => i.location?.row === commentRow(c));
    if (imp) beside.set(imp, c);
    return !imp;
  });
  const groups: Import[][] = [];
  for (const imp of imports) {
    const group = groups[groups.length - 1];
    const prev = group?.[group.length - 1];
    if (!group || (prev?.location && imp.location && imp.location.row - prev.location.row > 1)) groups.push([imp]);
    else group.push(imp);
  }
  for (const group of groups) {
    w.insertComments(group[0]!.location?.row ?? -1);
    for (const imp of [...group].sort(compareImports)) {
      w.startLine();
      w.write(importText(w, imp));
      const c = beside.get(imp);
      if (c) w.write(' ' + commentText(c));
      w.endLine();
    }
    w.blankLine();
  }
}

/** Import paths are written as OPA prints refs: only non-identifiers are bracketed. */
function importText(w: Writer, imp: Import): string {
  // a keyword named by a future import is written as a name (`future.keywords.not`)
  if (futureKeywords(imp)) return `import ${importPath(imp)!.join('.')}`;
  const scratch = new Writer({ ...w.flags, keywords: new Set(KEYWORDS_V0) }, []);
  scratch.inline = true;
  writeRef(scratch, imp.path.value);
  return `import ${scratch.text()}${imp.alias ? ` as ${imp.alias}` : ''}`;
}

/** OPA's term order, enough for import paths: by type (string before var), then value. */
function compareImports(a: Import, b: Import): number {
  const pa = a.path.value;
  const pb = b.path.value;
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x.type !== y.type) return x.type === 'string' ? -1 : y.type === 'string' ? 1 : x.type < y.type ? -1 : 1;
    const xv = termKey(x);
    const yv = termKey(y);
    if (xv !== yv) return xv < yv ? -1 : 1;
  }
  if (pa.length !== pb.length) return pa.length - pb.length;
  const aa = a.alias ?? '';
  const ba = b.alias ?? '';
  return aa < ba ? -1 : aa > ba ? 1 : 0;
}

function termKey(t: Term): string {
  return t.type === 'string' || t.type === 'var' ? t.value : JSON.stringify(t);
}

/** A query body as Rego text, one expression per line (for residual queries and tools). */
export function formatBody(body: Body): string {
  const w = new Writer({ ...flagsFor(EMPTY_MODULE, [], true) }, []);
  writeBody(w, body);
  return w.text().replace(/\n+$/, '');
}

const EMPTY_MODULE: Module = { package: { path: [] }, imports: [], rules: [], annotations: [], comments: [], regoVersion: 'v1' };
