// `inspect -a/--annotations`: every METADATA block of a bundle's modules, as OPA's flattened
// annotation set lists them: one entry per block with its target path (the package, or the
// rule's ground path), the annotated node's location, and the annotations. Sorted by path,
// then by where the block is written. JSON: OPA's AnnotationsRef (`annotations`,
// `location`, `path` as terms); pretty: OPA's ANNOTATIONS section.

import { posix } from 'node:path';
import { parseModule, type Annotations, type Module, type RegoVersion, type Term } from '../engine/syntax.js';

export interface AnnotationRef {
  /** The target path, e.g. ["data", "a", "allow"]. */
  path: string[];
  /** Where the annotated package or rule is written. */
  location: { file: string; row: number; col: number };
  annotations: Annotations;
  /** The package path without `data` (every entry has one) and, for rules, the head's ref text. */
  pkg: string;
  rule?: string;
}

export interface AnnotatedModule {
  /** The name shown for the file (as in the namespace listing). */
  file: string;
  text: string;
  regoVersion: RegoVersion;
}

const IDENT = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A ref's text as OPA prints it: `a.b["c-d"]`, a variable key as `[x]`. */
function refText(path: readonly Term[]): string {
  return path
    .map((t, i) => {
      if (t.type === 'var') return i === 0 ? t.value : `[${t.value}]`;
      if (t.type === 'string') return i === 0 || !IDENT.test(t.value) ? (i === 0 ? t.value : `[${JSON.stringify(t.value)}]`) : `.${t.value}`;
      return '[...]';
    })
    .join('');
}

function groundStrings(ref: readonly Term[]): string[] {
  const out: string[] = [];
  for (const t of ref) {
    if (t.type !== 'var' && t.type !== 'string') break;
    if (t.type === 'var' && out.length > 0) break;
    out.push(t.value);
  }
  return out;
}

function refsOf(m: Module): AnnotationRef[] {
  const pkgPath = m.package.path.slice(1).map((t) => (t.type === 'string' ? t.value : ''));
  const loc = (l: { file: string; row: number; col: number } | undefined) => ({ file: l?.file ?? '', row: l?.row ?? 0, col: l?.col ?? 0 });
  const pkg = pkgPath.join('.');
  const out: AnnotationRef[] = [];
  for (const a of m.annotations) {
    if (a.scope === 'package' || a.scope === 'subpackages') out.push({ path: ['data', ...pkgPath], location: loc(m.package.location), annotations: a, pkg });
  }
  for (const r of m.rules) {
    for (const a of r.annotations ?? []) {
      out.push({ path: ['data', ...pkgPath, ...groundStrings(r.head.ref)], location: loc(r.location), annotations: a, pkg, rule: refText(r.head.ref) });
    }
  }
  return out;
}

function compareRefs(a: AnnotationRef, b: AnnotationRef): number {
  for (let i = 0; i < Math.min(a.path.length, b.path.length); i++) {
    if (a.path[i] !== b.path[i]) return a.path[i]! < b.path[i]! ? -1 : 1;
  }
  if (a.path.length !== b.path.length) return a.path.length - b.path.length;
  const la = a.annotations.location;
  const lb = b.annotations.location;
  if (la?.file !== lb?.file) return (la?.file ?? '') < (lb?.file ?? '') ? -1 : 1;
  return (la?.row ?? 0) - (lb?.row ?? 0) || (la?.col ?? 0) - (lb?.col ?? 0);
}

/** Every annotation block of the modules, OPA's Flatten order. Parse errors are thrown. */
export function annotationRefs(modules: readonly AnnotatedModule[]): AnnotationRef[] {
  const refs: AnnotationRef[] = [];
  for (const m of modules) refs.push(...refsOf(parseModule(m.text, { filename: m.file, regoVersion: m.regoVersion })));
  return refs.sort(compareRefs);
}

// ---- JSON ------------------------------------------------------------------------------

function pathTerms(path: readonly string[]): unknown[] {
  return path.map((s, i) => (i === 0 ? { type: 'var', value: s } : { type: 'string', value: s }));
}

/** `input.x` / `schema.input` as OPA's ref terms. */
function dotted(s: unknown): unknown {
  return typeof s === 'string' ? pathTerms(s.split('.')) : s;
}

/** OPA's Annotations JSON: keys sorted (a Go map), empty fields left out, no location. */
function annotationsJSON(a: Annotations): Record<string, unknown> {
  const o: Record<string, unknown> = { scope: a.scope };
  if (a.title) o['title'] = a.title;
  if (a.description) o['description'] = a.description;
  if (a.entrypoint) o['entrypoint'] = true;
  if (a.organizations?.length) o['organizations'] = a.organizations;
  if (a.related_resources?.length) o['related_resources'] = a.related_resources;
  if (a.authors?.length) o['authors'] = a.authors;
  if (a.schemas?.length) {
    o['schemas'] = a.schemas.map((s) => {
      const x: Record<string, unknown> = {};
      if (s.path !== undefined) x['path'] = dotted(s.path);
      if (s.schema !== undefined) x['schema'] = dotted(s.schema);
      if (s.definition !== undefined) x['definition'] = s.definition;
      return x;
    });
  }
  if (a.compile) o['compile'] = a.compile;
  if (a.custom && Object.keys(a.custom).length) o['custom'] = a.custom;
  return Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1)));
}

export function annotationRefsJSON(refs: readonly AnnotationRef[]): unknown[] {
  return refs.map((r) => ({ annotations: annotationsJSON(r.annotations), location: r.location, path: pathTerms(r.path) }));
}

// ---- pretty ----------------------------------------------------------------------------

const PAGE_WIDTH = 80;

function cut(s: string): string {
  return s.length < PAGE_WIDTH ? s : s.slice(0, PAGE_WIDTH - 3) + '...';
}

/** OPA's printList: one entry a line, a space in front, values lined up after the longest key. */
function list(entries: [string, string][], sep: string): string[] {
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => cut(v ? ` ${k}${sep}${' '.repeat(width - k.length)}${v}` : ` ${k}`));
}

function author(a: { name?: string; email?: string }): string {
  if (!a.email) return a.name ?? '';
  return a.name ? `${a.name} <${a.email}>` : `<${a.email}>`;
}

const noNewLines = (s: string) => s.replace(/\n/g, ' ');

/** OPA's ANNOTATIONS section of `inspect -a`. */
export function annotationsPretty(refs: readonly AnnotationRef[]): string {
  if (refs.length === 0) return '';
  const out = ['ANNOTATIONS:'];
  for (const r of refs) {
    const a = r.annotations;
    const title = a.title?.trim() || refText(pathTerms(r.path.slice(1)) as Term[]);
    out.push(title, '='.repeat(Math.min(title.length, PAGE_WIDTH)), '');
    if (a.description) out.push(a.description, '');
    out.push(`Package:  ${r.pkg}`);
    if (r.rule !== undefined) out.push(`Rule:     ${r.rule}`);
    out.push(`Location: ${r.location.file}:${r.location.row}`);
    out.push(`Scope: ${a.scope}`);
    if (a.entrypoint) out.push('Entrypoint: true');
    out.push('');
    if (a.organizations?.length) out.push('Organizations:', ...list(a.organizations.map((o) => [noNewLines(o), '']), ''), '');
    if (a.authors?.length) out.push('Authors:', ...list(a.authors.map((x) => [noNewLines(author(x)), '']), ''), '');
    if (a.schemas?.length) {
      const rows = a.schemas.map((s): [string, string] => [String(s.path ?? ''), typeof s.schema === 'string' ? s.schema : s.definition !== undefined ? JSON.stringify(s.definition) : '']);
      out.push('Schemas:', ...list(rows, ': '), '');
    }
    if (a.related_resources?.length) out.push('Related Resources:', ...list(a.related_resources.map((x) => [noNewLines(x.ref), x.description ?? '']), ' '), '');
    if (a.custom && Object.keys(a.custom).length) {
      const rows = Object.keys(a.custom).sort().map((k): [string, string] => [k, JSON.stringify(a.custom![k])]);
      out.push('Custom:', ...list(rows, ': '), '');
    }
  }
  return out.join('\n') + '\n';
}

/** The file name a module is listed under (as the namespace table shows it). */
export function shownFile(path: string, url: string, fromDirectory: boolean): string {
  return fromDirectory ? posix.normalize(url) : '/' + path;
}
