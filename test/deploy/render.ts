// A small renderer for the subset of Helm's template language (Go text/template plus a few
// Sprig functions) that deploy/helm/regolith uses, because `helm template` is not available
// where the tests run. Anything outside the subset — another keyword (with, template, block,
// else if, range-else), an unknown function, a `%d` on a number (Helm's numbers are float64),
// printing a missing value or a map — throws, so a chart change the renderer does not
// understand fails the tests instead of being skipped silently.
//
// Supported: text with {{ }} actions and the {{- -}} trim markers; {{/* comments */}};
// define / include; if / else / end (nested); range [$k, $v :=] over maps (sorted keys, as
// Go) and lists; pipelines with `|`; parenthesised sub-pipelines; fields .a.b, $, $var.a;
// string and number literals, true/false; the functions in FUNCS below.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import yaml from 'js-yaml';

export class TemplateError extends Error {
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = 'TemplateError';
  }
}

// ---------------------------------------------------------------------------------------
// lexing the template: text and actions

type Item = { kind: 'text'; text: string } | { kind: 'action'; src: string };

function splitActions(file: string, src: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  let trimNext = false;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    let text = open < 0 ? src.slice(i) : src.slice(i, open);
    if (trimNext) text = text.replace(/^\s+/, '');
    trimNext = false;
    if (open < 0) {
      if (text) items.push({ kind: 'text', text });
      break;
    }
    let start = open + 2;
    // "{{- " trims the text before; "{{-3}}" would be the number -3
    if (src[start] === '-' && /\s/.test(src[start + 1] ?? '')) {
      text = text.replace(/\s+$/, '');
      start += 1;
    }
    if (text) items.push({ kind: 'text', text });
    // a comment, as Go lexes it: "/*" right after the delimiter (and trim marker), up to the
    // first "*/", which must be followed by the closing delimiter
    const cm = /^\s*\/\*/.exec(src.slice(start));
    if (cm) {
      if (cm[0].length > 2 && src[start - 1] !== '-') throw new TemplateError(file, `comment must start right after {{ (offset ${open})`);
      const close = src.indexOf('*/', start);
      if (close < 0) throw new TemplateError(file, `unclosed comment at offset ${open}`);
      const after = /^( -)?\}\}/.exec(src.slice(close + 2));
      if (!after) throw new TemplateError(file, `comment ends without }} at offset ${close}`);
      trimNext = after[1] !== undefined;
      i = close + 2 + after[0].length;
      continue;
    }
    // the action's end: the first "}}" outside a string literal
    let j = start;
    let inStr = false;
    for (; j < src.length; j++) {
      const c = src[j];
      if (inStr) {
        if (c === '\\') j++;
        else if (c === '"') inStr = false;
      } else if (c === '"') inStr = true;
      else if (c === '`') throw new TemplateError(file, 'raw string literals are not supported');
      else if (c === '}' && src[j + 1] === '}') break;
    }
    if (j >= src.length) throw new TemplateError(file, `unclosed action at offset ${open}`);
    let end = j;
    if (src[end - 1] === '-' && /\s/.test(src[end - 2] ?? '')) {
      trimNext = true;
      end -= 1;
    }
    const body = src.slice(start, end).trim();
    if (!(body.startsWith('/*') && body.endsWith('*/'))) items.push({ kind: 'action', src: body });
    i = j + 2;
  }
  return items;
}

// ---------------------------------------------------------------------------------------
// lexing and parsing an action

type Tok =
  | { t: 'str'; v: string }
  | { t: 'num'; v: number }
  | { t: 'field'; path: string[] } // .a.b ; [] is "."
  | { t: 'var'; name: string; path: string[] } // $ / $x with .fields
  | { t: 'ident'; v: string }
  | { t: 'op'; v: '(' | ')' | '|' | ':=' | ',' };

function lexAction(file: string, s: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  const fields = (): string[] => {
    const path: string[] = [];
    while (s[i] === '.') {
      const m = /^\.([A-Za-z_][A-Za-z0-9_]*)/.exec(s.slice(i));
      if (!m) break;
      path.push(m[1]!);
      i += m[0].length;
    }
    return path;
  };
  while (i < s.length) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      toks.push({ t: 'str', v: JSON.parse(s.slice(i, j + 1)) as string });
      i = j + 1;
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(s[i + 1] ?? ''))) {
      const m = /^-?[0-9]+(\.[0-9]+)?/.exec(s.slice(i))!;
      toks.push({ t: 'num', v: Number(m[0]) });
      i += m[0].length;
    } else if (c === '.') {
      const path = fields();
      if (path.length === 0) {
        if (s[i] !== '.') throw new TemplateError(file, `bad field in {{ ${s} }}`);
        i++;
      }
      toks.push({ t: 'field', path });
    } else if (c === '$') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?/.exec(s.slice(i))!;
      i += m[0].length;
      toks.push({ t: 'var', name: m[1] ?? '', path: fields() });
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i))!;
      toks.push({ t: 'ident', v: m[0] });
      i += m[0].length;
    } else if (c === ':' && s[i + 1] === '=') {
      toks.push({ t: 'op', v: ':=' });
      i += 2;
    } else if (c === '(' || c === ')' || c === '|' || c === ',') {
      toks.push({ t: 'op', v: c });
      i++;
    } else {
      throw new TemplateError(file, `unsupported character ${JSON.stringify(c)} in {{ ${s} }}`);
    }
  }
  return toks;
}

type Operand = { k: 'lit'; v: unknown } | { k: 'field'; path: string[] } | { k: 'var'; name: string; path: string[] } | { k: 'pipe'; pipe: Pipeline } | { k: 'fn'; name: string };
type Command = Operand[];
type Pipeline = Command[];

const FUNCS: Record<string, (...args: unknown[]) => unknown> = {}; // filled below; `include` is special

function parsePipeline(file: string, toks: Tok[], pos: { i: number }, src: string): Pipeline {
  const pipe: Pipeline = [];
  let cmd: Command = [];
  for (;;) {
    const tok = toks[pos.i];
    if (tok === undefined || (tok.t === 'op' && tok.v === ')')) break;
    pos.i++;
    if (tok.t === 'op' && tok.v === '|') {
      if (cmd.length === 0) throw new TemplateError(file, `empty command in {{ ${src} }}`);
      pipe.push(cmd);
      cmd = [];
      continue;
    }
    if (tok.t === 'op' && tok.v === '(') {
      const inner = parsePipeline(file, toks, pos, src);
      const close = toks[pos.i++];
      if (!close || close.t !== 'op' || close.v !== ')') throw new TemplateError(file, `unclosed ( in {{ ${src} }}`);
      cmd.push({ k: 'pipe', pipe: inner });
      continue;
    }
    if (tok.t === 'op') throw new TemplateError(file, `unexpected ${tok.v} in {{ ${src} }}`);
    if (tok.t === 'str' || tok.t === 'num') cmd.push({ k: 'lit', v: tok.v });
    else if (tok.t === 'field') cmd.push({ k: 'field', path: tok.path });
    else if (tok.t === 'var') cmd.push({ k: 'var', name: tok.name, path: tok.path });
    else if (tok.v === 'true' || tok.v === 'false') cmd.push({ k: 'lit', v: tok.v === 'true' });
    else if (tok.v === 'nil') cmd.push({ k: 'lit', v: undefined });
    else if (tok.v === 'include' || FUNCS[tok.v]) cmd.push({ k: 'fn', name: tok.v });
    else throw new TemplateError(file, `unsupported function or keyword "${tok.v}" in {{ ${src} }}`);
  }
  if (cmd.length === 0) throw new TemplateError(file, `empty pipeline in {{ ${src} }}`);
  pipe.push(cmd);
  for (const c of pipe) {
    // only a function takes arguments; a function name is only valid first in its command
    if (c.length > 1 && c[0]!.k !== 'fn') throw new TemplateError(file, `can't give arguments to a non-function in {{ ${src} }}`);
    if (c.slice(1).some((o) => o.k === 'fn')) throw new TemplateError(file, `a function as an argument needs parentheses in {{ ${src} }}`);
  }
  return pipe;
}

function parseFullPipeline(file: string, src: string, toks: Tok[]): Pipeline {
  const pos = { i: 0 };
  const p = parsePipeline(file, toks, pos, src);
  if (pos.i !== toks.length) throw new TemplateError(file, `unexpected ) in {{ ${src} }}`);
  return p;
}

// ---------------------------------------------------------------------------------------
// the template tree

type Node =
  | { n: 'text'; text: string }
  | { n: 'out'; pipe: Pipeline; src: string }
  | { n: 'if'; cond: Pipeline; then: Node[]; else: Node[] }
  | { n: 'range'; keyVar?: string; valVar?: string; over: Pipeline; body: Node[] };

interface Frame {
  kind: 'root' | 'if' | 'else' | 'range' | 'define';
  nodes: Node[];
  node?: Node;
  name?: string;
}

function parseTemplate(file: string, src: string, defines: Map<string, Node[]>): Node[] {
  const root: Frame = { kind: 'root', nodes: [] };
  const stack: Frame[] = [root];
  const top = () => stack[stack.length - 1]!;
  for (const item of splitActions(file, src)) {
    if (item.kind === 'text') {
      top().nodes.push({ n: 'text', text: item.text });
      continue;
    }
    const toks = lexAction(file, item.src);
    const head = toks[0];
    const kw = head?.t === 'ident' ? head.v : undefined;
    if (kw === 'if') {
      const node: Node = { n: 'if', cond: parseFullPipeline(file, item.src, toks.slice(1)), then: [], else: [] };
      top().nodes.push(node);
      stack.push({ kind: 'if', nodes: node.then, node });
    } else if (kw === 'else') {
      if (toks.length > 1) throw new TemplateError(file, `unsupported {{ ${item.src} }} (else if / else with)`);
      const f = top();
      if (f.kind !== 'if') throw new TemplateError(file, `{{ else }} outside if${f.kind === 'range' ? ' (range-else is not supported)' : ''}`);
      stack.pop();
      const node = f.node as Extract<Node, { n: 'if' }>;
      stack.push({ kind: 'else', nodes: node.else, node });
    } else if (kw === 'end') {
      if (toks.length > 1) throw new TemplateError(file, `bad {{ ${item.src} }}`);
      const f = stack.pop()!;
      if (f.kind === 'root') throw new TemplateError(file, 'unexpected {{ end }}');
      if (f.kind === 'define') defines.set(f.name!, f.nodes);
    } else if (kw === 'range') {
      let rest = toks.slice(1);
      let keyVar: string | undefined;
      let valVar: string | undefined;
      const assign = rest.findIndex((t) => t.t === 'op' && t.v === ':=');
      if (assign >= 0) {
        const vars = rest.slice(0, assign);
        const names = vars.filter((t) => !(t.t === 'op' && t.v === ','));
        if (names.length < 1 || names.length > 2 || names.some((t) => t.t !== 'var' || t.path.length > 0 || t.name === '')) throw new TemplateError(file, `bad range variables in {{ ${item.src} }}`);
        const ns = names.map((t) => (t as { name: string }).name);
        if (ns.length === 2) [keyVar, valVar] = ns;
        else valVar = ns[0];
        rest = rest.slice(assign + 1);
      }
      const node: Node = { n: 'range', keyVar, valVar, over: parseFullPipeline(file, item.src, rest), body: [] };
      top().nodes.push(node);
      stack.push({ kind: 'range', nodes: node.body, node });
    } else if (kw === 'define') {
      const name = toks[1];
      if (toks.length !== 2 || name?.t !== 'str') throw new TemplateError(file, `bad {{ ${item.src} }}`);
      if (stack.length !== 1) throw new TemplateError(file, 'define inside a block');
      stack.push({ kind: 'define', nodes: [], name: name.v });
    } else if (kw === 'with' || kw === 'template' || kw === 'block' || kw === 'break' || kw === 'continue') {
      throw new TemplateError(file, `unsupported keyword "${kw}" in {{ ${item.src} }}`);
    } else if (toks.some((t) => t.t === 'op' && t.v === ':=')) {
      throw new TemplateError(file, `variable assignment is not supported: {{ ${item.src} }}`);
    } else {
      top().nodes.push({ n: 'out', pipe: parseFullPipeline(file, item.src, toks), src: item.src });
    }
  }
  if (stack.length !== 1) throw new TemplateError(file, `unclosed {{ ${top().kind} }}`);
  return root.nodes;
}

// ---------------------------------------------------------------------------------------
// evaluation

interface Scope {
  file: string;
  dot: unknown;
  vars: Map<string, unknown>;
  defines: Map<string, Node[]>;
  depth: number;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go template truth: false, 0, "", nil, empty map/list are false. */
function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

function lookup(sc: Scope, base: unknown, path: string[], what: string): unknown {
  let cur = base;
  for (let i = 0; i < path.length; i++) {
    if (cur === undefined || cur === null) throw new TemplateError(sc.file, `nil pointer evaluating ${what}: .${path.slice(0, i).join('.')} is nil`);
    if (!isMap(cur)) throw new TemplateError(sc.file, `can't evaluate field ${path[i]} of a ${Array.isArray(cur) ? 'list' : typeof cur} in ${what}`);
    cur = cur[path[i]!];
  }
  return cur;
}

function evalOperand(sc: Scope, o: Operand, src: string): unknown {
  switch (o.k) {
    case 'lit':
      return o.v;
    case 'field':
      return lookup(sc, sc.dot, o.path, src);
    case 'var': {
      if (!sc.vars.has(o.name)) throw new TemplateError(sc.file, `undefined variable $${o.name} in {{ ${src} }}`);
      return lookup(sc, sc.vars.get(o.name), o.path, src);
    }
    case 'pipe':
      return evalPipeline(sc, o.pipe, src);
    case 'fn':
      throw new TemplateError(sc.file, `function ${o.name} used as a value in {{ ${src} }}`);
  }
}

function evalPipeline(sc: Scope, pipe: Pipeline, src: string): unknown {
  let piped: { v: unknown } | undefined;
  for (const cmd of pipe) {
    const head = cmd[0]!;
    if (head.k !== 'fn') {
      if (piped) throw new TemplateError(sc.file, `can't pipe into a non-function in {{ ${src} }}`);
      piped = { v: evalOperand(sc, head, src) };
      continue;
    }
    const args = cmd.slice(1).map((o) => evalOperand(sc, o, src));
    if (piped) args.push(piped.v);
    piped = { v: callFunction(sc, head.name, args, src) };
  }
  return piped!.v;
}

function callFunction(sc: Scope, name: string, args: unknown[], src: string): unknown {
  if (name === 'include') {
    const [tpl, ctx] = args;
    if (args.length !== 2 || typeof tpl !== 'string') throw new TemplateError(sc.file, `include needs a name and a context in {{ ${src} }}`);
    const body = sc.defines.get(tpl);
    if (!body) throw new TemplateError(sc.file, `no template "${tpl}"`);
    if (sc.depth > 50) throw new TemplateError(sc.file, 'include nested too deeply');
    return renderNodes({ ...sc, file: `${sc.file} > ${tpl}`, dot: ctx, vars: new Map([['', ctx]]), depth: sc.depth + 1 }, body);
  }
  try {
    return FUNCS[name]!(...args);
  } catch (e) {
    throw new TemplateError(sc.file, `${name}: ${(e as Error).message} in {{ ${src} }}`);
  }
}

/** The text a value prints as; missing values, maps and lists are errors here (use toYaml). */
function printed(sc: Scope, v: unknown, src: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === undefined || v === null) throw new TemplateError(sc.file, `{{ ${src} }} has no value (it would render "<no value>")`);
  throw new TemplateError(sc.file, `{{ ${src} }} is a ${Array.isArray(v) ? 'list' : 'map'}: print it with toYaml`);
}

function renderNodes(sc: Scope, nodes: Node[]): string {
  let out = '';
  for (const node of nodes) {
    switch (node.n) {
      case 'text':
        out += node.text;
        break;
      case 'out':
        out += printed(sc, evalPipeline(sc, node.pipe, node.src), node.src);
        break;
      case 'if':
        out += renderNodes(sc, truthy(evalPipeline(sc, node.cond, 'if')) ? node.then : node.else);
        break;
      case 'range': {
        const over = evalPipeline(sc, node.over, 'range');
        let entries: [unknown, unknown][];
        if (Array.isArray(over)) entries = over.map((v, i) => [i, v]);
        else if (isMap(over)) entries = Object.keys(over).sort().map((k) => [k, over[k]]);
        else if (over === undefined || over === null) entries = [];
        else throw new TemplateError(sc.file, `range over a ${typeof over}`);
        for (const [k, v] of entries) {
          const vars = new Map(sc.vars);
          if (node.keyVar) vars.set(node.keyVar, k);
          if (node.valVar) vars.set(node.valVar, v);
          out += renderNodes({ ...sc, dot: v, vars }, node.body);
        }
        break;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// functions (Sprig's semantics for the cases the chart uses)

const str = (fn: string, v: unknown): string => {
  if (typeof v !== 'string') throw new Error(`${fn} wants a string, got ${v === undefined ? 'nil' : typeof v}`);
  return v;
};
const int = (fn: string, v: unknown): number => {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new Error(`${fn} wants an integer, got ${JSON.stringify(v)}`);
  return v;
};
const indentLines = (n: number, s: string): string =>
  s
    .split('\n')
    .map((l) => ' '.repeat(n) + l)
    .join('\n');

/** Helm's toYaml: sigs.k8s.io/yaml (sorted keys), without the trailing newline. */
export function toYaml(v: unknown): string {
  if (v === undefined) throw new Error('toYaml of a missing value');
  return yaml.dump(v, { sortKeys: true, lineWidth: -1, noRefs: true }).replace(/\n$/, '');
}

Object.assign(FUNCS, {
  toYaml,
  nindent: (n: unknown, s: unknown) => '\n' + indentLines(int('nindent', n), str('nindent', s)),
  indent: (n: unknown, s: unknown) => indentLines(int('indent', n), str('indent', s)),
  quote: (...vs: unknown[]) => {
    if (vs.length !== 1) throw new Error('quote with more than one argument is not supported');
    const v = vs[0];
    if (v === undefined || v === null) throw new Error('quote of a missing value');
    if (typeof v === 'object') throw new Error('quote of a map or list');
    return JSON.stringify(String(v));
  },
  default: (d: unknown, ...rest: unknown[]) => {
    if (rest.length !== 1) throw new Error('default wants two arguments');
    return truthy(rest[0]) ? rest[0] : d;
  },
  b64enc: (s: unknown) => Buffer.from(str('b64enc', s), 'utf8').toString('base64'),
  sha256sum: (s: unknown) => createHash('sha256').update(str('sha256sum', s)).digest('hex'),
  printf: (fmt: unknown, ...args: unknown[]) => {
    let i = 0;
    const out = str('printf', fmt).replace(/%(.)/g, (_m, verb: string) => {
      if (verb === '%') return '%';
      if (i >= args.length) throw new Error(`missing argument for %${verb}`);
      const a = args[i++];
      if (verb === 's') return str('printf %s', a);
      if (verb === 'v') {
        if (typeof a === 'string' || typeof a === 'boolean') return String(a);
        // Helm's numbers are float64: %v prints integral ones without a fraction below 1e21
        if (typeof a === 'number' && Number.isInteger(a) && Math.abs(a) < 1e21) return String(a);
        throw new Error(`%v of ${JSON.stringify(a)} is not supported`);
      }
      // %d of a float64 is "%!d(float64=...)" in Helm: refuse it
      throw new Error(`printf verb %${verb} is not supported (use %s or %v)`);
    });
    if (i !== args.length) throw new Error('too many arguments');
    return out;
  },
  trunc: (n: unknown, s: unknown) => str('trunc', s).slice(0, int('trunc', n)),
  trimSuffix: (suffix: unknown, s: unknown) => {
    const t = str('trimSuffix', s);
    const x = str('trimSuffix', suffix);
    return x && t.endsWith(x) ? t.slice(0, -x.length) : t;
  },
  required: (msg: unknown, v: unknown) => {
    if (v === undefined || v === null || v === '') throw new Error(str('required', msg));
    return v;
  },
  eq: (a: unknown, b: unknown) => {
    if (typeof a === 'object' || typeof b === 'object') throw new Error('eq of maps or lists');
    return a === b;
  },
  ne: (a: unknown, b: unknown) => {
    if (typeof a === 'object' || typeof b === 'object') throw new Error('ne of maps or lists');
    return a !== b;
  },
  not: (a: unknown) => !truthy(a),
  or: (...vs: unknown[]) => vs.find(truthy) ?? vs[vs.length - 1],
  add: (...vs: unknown[]) => vs.reduce((s: number, v) => s + int('add', v), 0),
  dict: (...kv: unknown[]) => {
    if (kv.length % 2) throw new Error('dict wants key/value pairs');
    const out: Record<string, unknown> = {};
    for (let i = 0; i < kv.length; i += 2) out[str('dict', kv[i])] = kv[i + 1];
    return out;
  },
});

// ---------------------------------------------------------------------------------------
// the chart

export interface RenderedChart {
  /** Rendered manifests by template file name (only those with content). */
  files: Record<string, string>;
  /** Every Kubernetes object, in file order. */
  objects: Record<string, any>[];
  notes: string;
  values: Record<string, unknown>;
}

/** Helm's value merge: maps merge recursively, anything else replaces; null deletes a key. */
export function mergeValues(base: unknown, over: unknown): unknown {
  if (!isMap(base) || !isMap(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === null && k in base) delete out[k];
    else out[k] = mergeValues(base[k], v);
  }
  return out;
}

export function loadSchemaValidator(chartDir: string) {
  // CommonJS modules: their default export is the module (with the class as .default)
  const ajv = new AjvModule.default({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormatsModule.default(ajv);
  return ajv.compile(JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8')) as object);
}

export interface RenderOptions {
  releaseName?: string;
  namespace?: string;
  /** Merged over values.yaml as `-f`/`--set` would be. */
  values?: Record<string, unknown>;
  /** Extra templates (file name -> text) rendered with the chart's defines, e.g. a parent chart's pod. */
  extraTemplates?: Record<string, string>;
}

export function renderChart(chartDir: string, opts: RenderOptions = {}): RenderedChart {
  const chartYaml = yaml.load(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
  const defaults = yaml.load(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>;
  const values = mergeValues(defaults, opts.values ?? {}) as Record<string, unknown>;
  // helm validates the merged values against values.schema.json before rendering
  const validate = loadSchemaValidator(chartDir);
  if (!validate(values)) throw new TemplateError('values', `values don't meet the schema: ${JSON.stringify(validate.errors)}`);

  const Chart: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(chartYaml)) Chart[k[0]!.toUpperCase() + k.slice(1)] = v;
  const root = {
    Values: values,
    Chart,
    Release: { Name: opts.releaseName ?? 'release-name', Namespace: opts.namespace ?? 'default', Service: 'Helm', IsInstall: true, IsUpgrade: false, Revision: 1 },
  };

  const dir = join(chartDir, 'templates');
  const sources: [string, string][] = readdirSync(dir)
    .sort()
    .map((f) => [f, readFileSync(join(dir, f), 'utf8')] as [string, string]);
  for (const [f, text] of Object.entries(opts.extraTemplates ?? {})) sources.push([f, text]);
  for (const [f] of sources) if (!/\.(yaml|tpl|txt)$/.test(f)) throw new TemplateError(f, 'unexpected file in templates/');

  const defines = new Map<string, Node[]>();
  const parsed = sources.map(([f, text]) => [f, parseTemplate(f, text, defines)] as const);
  const files: Record<string, string> = {};
  let notes = '';
  for (const [f, nodes] of parsed) {
    const out = renderNodes({ file: f, dot: root, vars: new Map([['', root]]), defines, depth: 0 }, nodes);
    if (f.startsWith('_')) {
      if (out.trim() !== '') throw new TemplateError(f, 'a partial (_*.tpl) renders text outside its defines');
      continue;
    }
    if (f === 'NOTES.txt') notes = out;
    else if (out.trim() !== '') files[f] = out;
  }
  const objects: Record<string, any>[] = [];
  for (const [f, text] of Object.entries(files)) {
    if (!f.endsWith('.yaml')) continue;
    let docs: unknown[];
    try {
      docs = yaml.loadAll(text);
    } catch (e) {
      throw new TemplateError(f, `rendered YAML does not parse: ${(e as Error).message}\n${text}`);
    }
    for (const d of docs) {
      if (d === null || d === undefined) continue;
      if (!isMap(d)) throw new TemplateError(f, 'a rendered document is not an object');
      objects.push(d);
    }
  }
  return { files, objects, notes, values };
}
