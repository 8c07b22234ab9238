// `# METADATA` comment blocks: YAML after the marker line, attached to the package or
// rule that follows, as OPA's parseAnnotations / attachAnnotationsNodes do.

import yaml from 'js-yaml';
import type { Annotations, Comment, Location, RegoErrorDetail } from './ast.js';
import { PARSE_ERROR } from './errors.js';

export interface AnnotationBlock {
  annotations: Annotations;
  /** Row of the last comment line of the block. */
  endRow: number;
}

const SCOPES = new Set(['package', 'rule', 'document', 'subpackages']);

/** Finds METADATA blocks among the comments and parses their YAML. */
export function parseAnnotationBlocks(comments: Comment[], errors: RegoErrorDetail[]): AnnotationBlock[] {
  const blocks: { loc: Location; lines: Comment[] }[] = [];
  let cur: { loc: Location; lines: Comment[] } | undefined;
  for (let i = 0; i < comments.length; i++) {
    const c = comments[i]!;
    if (cur) {
      const prev = comments[i - 1]!;
      if (c.location!.row === prev.location!.row + 1 && c.location!.col === 1) {
        cur.lines.push(c);
        continue;
      }
      cur = undefined;
    }
    if (c.text.trim().startsWith('METADATA')) {
      cur = { loc: c.location!, lines: [] };
      blocks.push(cur);
    }
  }
  const out: AnnotationBlock[] = [];
  for (const b of blocks) {
    const fail = (message: string, loc: Location = b.loc): void => {
      errors.push({ code: PARSE_ERROR, message, location: { file: loc.file, row: loc.row, col: loc.col } });
    };
    const text = b.lines.map((c) => (c.text.startsWith(' ') ? c.text.slice(1) : c.text) + '\n').join('');
    if (text.trim() === '') {
      fail('expected METADATA block, found whitespace');
      continue;
    }
    let raw: unknown;
    try {
      raw = yaml.load(text, { schema: yaml.JSON_SCHEMA });
    } catch (e) {
      const mark = (e as { mark?: { line?: number } }).mark;
      const line = mark?.line;
      const at = line !== undefined && b.lines.length > 0 ? b.lines[Math.min(line, b.lines.length - 1)]!.location! : b.loc;
      fail(`yaml: ${(e as { reason?: string }).reason ?? String(e)}`, at);
      continue;
    }
    if (raw === null || raw === undefined) raw = {};
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      fail('yaml: unmarshal errors: cannot unmarshal into annotations');
      continue;
    }
    const r = raw as Record<string, unknown>;
    const a: Annotations = { scope: 'rule' };
    let scopeSet = false;
    try {
      if (r['scope'] !== undefined) {
        const s = String(r['scope']);
        if (!SCOPES.has(s)) throw new Error(`invalid annotation scope '${s}'. Use one of 'rule', 'document', 'package', or 'subpackages'`);
        a.scope = s as Annotations['scope'];
        scopeSet = true;
      }
      if (typeof r['title'] === 'string') a.title = r['title'];
      if (typeof r['description'] === 'string') a.description = r['description'];
      if (Array.isArray(r['organizations'])) a.organizations = r['organizations'].map(String);
      if (r['entrypoint'] === true) a.entrypoint = true;
      if (Array.isArray(r['related_resources'])) a.related_resources = r['related_resources'].map(relatedResource);
      if (Array.isArray(r['authors'])) a.authors = r['authors'].map(author);
      if (Array.isArray(r['schemas'])) a.schemas = r['schemas'].map(schema);
      if (r['compile'] !== undefined) a.compile = compileAnnotation(r['compile']);
      if (r['custom'] !== undefined) {
        if (typeof r['custom'] !== 'object' || r['custom'] === null || Array.isArray(r['custom'])) throw new Error('invalid custom annotation');
        a.custom = r['custom'] as Record<string, unknown>;
      }
    } catch (e) {
      fail((e as Error).message);
      continue;
    }
    const lines = ['# METADATA', ...b.lines.map((c) => '#' + c.text)];
    a.location = { ...b.loc, text: lines.join('\n') };
    if (!scopeSet) delete (a as Partial<Annotations>).scope;
    const last = b.lines[b.lines.length - 1] ?? { location: b.loc };
    out.push({ annotations: a, endRow: last.location!.row });
  }
  return out;
}

/** `compile:` (OPA 1.9+ data filtering): the unknowns and the mask rule of a filter rule. */
function compileAnnotation(v: unknown): { unknowns?: string[]; mask_rule?: string } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('invalid compile annotation: must be an object');
  const o = v as Record<string, unknown>;
  const out: { unknowns?: string[]; mask_rule?: string } = {};
  if (o['unknowns'] !== undefined) {
    if (!Array.isArray(o['unknowns']) || !o['unknowns'].every((x) => typeof x === 'string')) throw new Error('invalid compile annotation: unknowns must be a list of refs');
    out.unknowns = o['unknowns'] as string[];
  }
  if (o['mask_rule'] !== undefined) {
    if (typeof o['mask_rule'] !== 'string') throw new Error('invalid compile annotation: mask_rule must be a ref');
    out.mask_rule = o['mask_rule'];
  }
  return out;
}

function relatedResource(v: unknown): { ref: string; description?: string } {
  if (typeof v === 'string') {
    if (v.length === 0) throw new Error('invalid related-resource definition : ref URL may not be empty string');
    return { ref: v };
  }
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const ref = typeof o['ref'] === 'string' ? o['ref'].trim() : '';
    if (!ref) throw new Error(`invalid related-resource definition ${JSON.stringify(v)}: 'ref' value required in object`);
    const out: { ref: string; description?: string } = { ref };
    if (typeof o['description'] === 'string' && o['description'].trim()) out.description = o['description'].trim();
    return out;
  }
  throw new Error(`invalid related-resource definition ${String(v)}: invalid value type, must be string or map`);
}

function author(v: unknown): { name?: string; email?: string } {
  if (typeof v === 'string') {
    const parts = v.split(/\s+/).filter(Boolean);
    if (parts.length === 0) throw new Error(`invalid author definition ${v}: author is an empty string`);
    let email: string | undefined;
    const last = parts[parts.length - 1]!;
    if (last.length >= 2 && last.startsWith('<') && last.endsWith('>')) {
      email = last.slice(1, -1);
      parts.pop();
    }
    const out: { name?: string; email?: string } = {};
    if (parts.length) out.name = parts.join(' ');
    if (email) out.email = email;
    return out;
  }
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const name = typeof o['name'] === 'string' ? o['name'].trim() : '';
    const email = typeof o['email'] === 'string' ? o['email'].trim() : '';
    if (!name && !email) throw new Error(`invalid author definition ${JSON.stringify(v)}: 'name' and/or 'email' values required in object`);
    const out: { name?: string; email?: string } = {};
    if (name) out.name = name;
    if (email) out.email = email;
    return out;
  }
  throw new Error(`invalid author definition ${String(v)}: invalid value type, must be string or map`);
}

function schema(v: unknown): { path?: unknown; schema?: unknown; definition?: unknown } {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('invalid schema declaration');
  const entries = Object.entries(v as Record<string, unknown>);
  const [k, val] = entries[0] ?? ['', undefined];
  if (typeof val === 'string') {
    if (!/^schema(\.|\[|$)/.test(val)) throw new Error('invalid schema reference');
    return { path: k, schema: val };
  }
  if (val && typeof val === 'object' && !Array.isArray(val)) return { path: k, definition: val };
  throw new Error(`invalid schema declaration for path "${k}"`);
}
