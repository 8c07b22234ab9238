// strings.render_template: a subset of Go's text/template, run with missingkey=error, as
// OPA does; the output is returned as the template produced it (no trimming).
// Supported: text, {{- -}} trimming, comments, {{pipeline}} with fields (.a.b), $, $var,
// literals (strings, numbers, true/false/nil), parenthesised pipelines, `|` chains,
// variable declarations ($x := ...), if / else if / else, range (with $i, $v :=, else),
// with / else, and the functions and, or, not, len, index, eq, ne, lt, le, gt, ge,
// print, printf, println. Not supported: define/template/block, break/continue, method
// calls, html/js/urlquery escapers. Values print as Go prints the JSON-decoded data
// (maps as map[k:v], arrays as [a b], null as <no value>).

import { BigNum, RSet, compare, equal, isPlainObject, numberText, sortedKeys, type PlainObject, type Value } from '../../../value/index.js';
import { builtinError } from '../errors.js';
import { sprintf } from './sprintf.js';

type Tok = { t: 'field' | 'var' | 'str' | 'num' | 'ident' | 'punct'; v: string; pos: number };
type Operand =
  | { k: 'dot'; pos: number; fields: string[] }
  | { k: 'var'; pos: number; name: string; fields: string[] }
  | { k: 'lit'; pos: number; v: Value; text: string }
  | { k: 'fn'; pos: number; name: string }
  | { k: 'pipe'; pos: number; p: Pipeline; fields: string[] };
type Command = Operand[];
interface Pipeline {
  decl: string[];
  assign: boolean;
  cmds: Command[];
  pos: number;
  text: string;
}
type Node =
  | { k: 'text'; s: string }
  | { k: 'action'; p: Pipeline }
  | { k: 'if' | 'with' | 'range'; p: Pipeline; body: Node[]; els: Node[] };

class TemplateError extends Error {}

const NAME = 'template';

export function renderTemplate(src: string, data: PlainObject): string {
  let nodes: Node[];
  try {
    nodes = new Parser(src).parseAll();
  } catch (e) {
    if (e instanceof TemplateError) throw builtinError(`template: ${NAME}:${e.message}`);
    throw e;
  }
  const ex = new Exec(src);
  let out: string;
  try {
    out = ex.run(nodes, data, [['$', data]]);
  } catch (e) {
    if (e instanceof TemplateError) throw builtinError(e.message);
    throw e;
  }
  return out;
}

// ---- parsing --------------------------------------------------------------------------

class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  private line(pos: number): number {
    let n = 1;
    for (let k = 0; k < pos; k++) if (this.src[k] === '\n') n++;
    return n;
  }

  private fail(pos: number, msg: string): never {
    throw new TemplateError(`${this.line(pos)}: ${msg}`);
  }

  private items: ({ text: string } | { toks: Tok[]; pos: number; word: string })[] = [];

  private k = 0;

  parseAll(): Node[] {
    this.lex();
    const r = this.parseList(false);
    return r.nodes;
  }

  /** Parses nodes up to {{end}} or {{else ...}} (inside a block) or the end of input. */
  private parseList(inBlock: boolean): { nodes: Node[]; stop?: { toks: Tok[]; pos: number; word: string } } {
    const nodes: Node[] = [];
    while (this.k < this.items.length) {
      const it = this.items[this.k++]!;
      if ('text' in it) {
        nodes.push({ k: 'text', s: it.text });
        continue;
      }
      const w = it.word;
      if (w === 'end' || w === 'else') {
        if (!inBlock) this.fail(it.pos, `unexpected {{${w}}}`);
        return { nodes, stop: it };
      }
      if (w === 'if' || w === 'with' || w === 'range') {
        nodes.push(this.parseBlock(w, it.toks.slice(1), it.pos));
        continue;
      }
      if (w === 'define' || w === 'template' || w === 'block' || w === 'break' || w === 'continue')
        this.fail(it.pos, `{{${w}}} is not supported`);
      nodes.push({ k: 'action', p: this.pipeline(it.toks, it.pos, false) });
    }
    if (inBlock) this.fail(this.src.length, 'unexpected EOF');
    return { nodes };
  }

  /** A block whose keyword has been read; consumes through its {{end}}. */
  private parseBlock(w: 'if' | 'with' | 'range', toks: Tok[], pos: number): Node {
    const p = this.pipeline(toks, pos, w === 'range');
    const body = this.parseList(true);
    let els: Node[] = [];
    if (body.stop!.word === 'else') {
      const rest = body.stop!.toks.slice(1);
      // `else if` / `else with` nest a block that shares this block's {{end}}.
      if (rest.length && (w === 'if' || w === 'with') && rest[0]!.t === 'ident' && rest[0]!.v === w)
        els = [this.parseBlock(w, rest.slice(1), body.stop!.pos)];
      else {
        if (rest.length) this.fail(body.stop!.pos, 'unexpected tokens after else');
        const e = this.parseList(true);
        if (e.stop!.word !== 'end') this.fail(e.stop!.pos, 'expected end; found else');
        els = e.nodes;
      }
    }
    return { k: w, p, body: body.nodes, els };
  }

  private lex(): void {
    const s = this.src;
    let textStart = 0;
    let trimNext = false;
    while (this.i < s.length) {
      const open = s.indexOf('{{', this.i);
      if (open < 0) break;
      let text = s.slice(textStart, open);
      if (trimNext) text = text.replace(/^\s+/, '');
      let p = open + 2;
      if (s[p] === '-' && /\s/.test(s[p + 1] ?? '')) {
        text = text.replace(/\s+$/, '');
        p += 2;
      }
      if (text) this.items.push({ text });
      // Comment
      const body = s.slice(p);
      const cm = /^\s*\/\*[\s\S]*?\*\/\s*(-?)\}\}/.exec(body);
      if (cm) {
        const close = p + cm[0].length;
        trimNext = cm[1] === '-' && /\s/.test(s[close - 4] ?? '');
        this.i = textStart = close;
        continue;
      }
      const toks: Tok[] = [];
      let q = p;
      let closed = false;
      while (q < s.length) {
        const c = s[q]!;
        if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
          if (s[q + 1] === '-' && s.startsWith('}}', q + 2)) {
            trimNext = true;
            q += 4;
            closed = true;
            break;
          }
          q++;
          continue;
        }
        if (s.startsWith('}}', q)) {
          trimNext = false;
          q += 2;
          closed = true;
          break;
        }
        const rest = s.slice(q);
        let m: RegExpExecArray | null;
        if ((m = /^(\.[\p{L}_][\p{L}\p{N}_]*)+/u.exec(rest))) toks.push({ t: 'field', v: m[0], pos: q });
        else if ((m = /^\$[\p{L}\p{N}_]*(\.[\p{L}_][\p{L}\p{N}_]*)*/u.exec(rest))) toks.push({ t: 'var', v: m[0], pos: q });
        else if (c === '.') {
          toks.push({ t: 'field', v: '.', pos: q });
          m = /^\./.exec(rest);
        }
        else if ((m = /^"(?:[^"\\\n]|\\.)*"/.exec(rest))) toks.push({ t: 'str', v: m[0], pos: q });
        else if ((m = /^`[^`]*`/.exec(rest))) toks.push({ t: 'str', v: m[0], pos: q });
        else if ((m = /^'(?:[^'\\]|\\.)+'/.exec(rest))) toks.push({ t: 'num', v: String(JSON.parse('"' + m[0].slice(1, -1) + '"').codePointAt(0)), pos: q });
        else if ((m = /^[+-]?(?:0[xX][0-9a-fA-F_]+|(?:\d[\d_]*)?\.?\d+(?:[eE][+-]?\d+)?)/.exec(rest))) toks.push({ t: 'num', v: m[0], pos: q });
        else if ((m = /^[\p{L}_][\p{L}\p{N}_]*/u.exec(rest))) toks.push({ t: 'ident', v: m[0], pos: q });
        else if ((m = /^(:=|=|\||\(|\)|,)/.exec(rest))) toks.push({ t: 'punct', v: m[0], pos: q });
        else this.fail(q, `unexpected ${JSON.stringify(c)} in command`);
        q += m![0].length;
      }
      if (!closed) this.fail(open, 'unclosed action');
      if (toks.length === 0) this.fail(open, 'missing value for command');
      const word = toks[0]!.t === 'ident' ? toks[0]!.v : '';
      this.items.push({ toks, pos: p, word });
      this.i = textStart = q;
    }
    let tail = s.slice(textStart);
    if (trimNext) tail = tail.replace(/^\s+/, '');
    if (tail) this.items.push({ text: tail });
  }

  private pipeline(toks: Tok[], pos: number, isRange: boolean): Pipeline {
    const text = toks.map((t) => t.v).join(' ');
    const p: Pipeline = { decl: [], assign: false, cmds: [], pos: toks[0]?.pos ?? pos, text };
    let k = 0;
    // Declarations: $x := or $i, $v :=
    const declEnd = toks.findIndex((t) => t.t === 'punct' && (t.v === ':=' || t.v === '='));
    if (declEnd > 0 && toks.slice(0, declEnd).every((t) => t.t === 'var' || t.v === ',')) {
      p.decl = toks.slice(0, declEnd).filter((t) => t.t === 'var').map((t) => t.v);
      p.assign = toks[declEnd]!.v === '=';
      if (p.decl.length > (isRange ? 2 : 1)) this.fail(pos, 'too many declarations');
      k = declEnd + 1;
    }
    const parseCmds = (stop: string | undefined): Command[] => {
      const cmds: Command[] = [];
      let cmd: Command = [];
      while (k < toks.length) {
        const t = toks[k++]!;
        if (t.t === 'punct') {
          if (t.v === '|') {
            if (!cmd.length) this.fail(t.pos, 'missing command');
            cmds.push(cmd);
            cmd = [];
            continue;
          }
          if (t.v === ')' && stop === ')') {
            if (cmd.length) cmds.push(cmd);
            return cmds;
          }
          if (t.v === '(') {
            const inner = parseCmds(')');
            let fields: string[] = [];
            if (k < toks.length && toks[k]!.t === 'field' && toks[k]!.pos === toks[k - 1]!.pos + 1) fields = toks[k++]!.v.split('.').slice(1);
            cmd.push({ k: 'pipe', pos: t.pos, p: { decl: [], assign: false, cmds: inner, pos: t.pos, text: '' }, fields });
            continue;
          }
          this.fail(t.pos, `unexpected "${t.v}" in operand`);
        }
        cmd.push(this.operand(t));
      }
      if (stop) this.fail(pos, 'unclosed left paren');
      if (cmd.length) cmds.push(cmd);
      else if (cmds.length) this.fail(pos, 'missing command');
      return cmds;
    };
    p.cmds = parseCmds(undefined);
    if (!p.cmds.length) this.fail(pos, 'missing value for command');
    return p;
  }

  private operand(t: Tok): Operand {
    switch (t.t) {
      case 'field':
        return { k: 'dot', pos: t.pos, fields: t.v === '.' ? [] : t.v.split('.').slice(1) };
      case 'var': {
        const [name, ...fields] = t.v.split('.');
        return { k: 'var', pos: t.pos, name: name!, fields };
      }
      case 'str':
        return { k: 'lit', pos: t.pos, v: t.v[0] === '`' ? t.v.slice(1, -1) : (JSON.parse(t.v) as string), text: t.v };
      case 'num': {
        const n = Number(t.v.replace(/_/g, ''));
        if (!Number.isFinite(n)) this.fail(t.pos, `illegal number syntax: ${t.v}`);
        return { k: 'lit', pos: t.pos, v: n, text: t.v };
      }
      default:
        if (t.v === 'true' || t.v === 'false') return { k: 'lit', pos: t.pos, v: t.v === 'true', text: t.v };
        if (t.v === 'nil') return { k: 'lit', pos: t.pos, v: null, text: t.v };
        if (!(t.v in FUNCS)) this.fail(t.pos, `function "${t.v}" not defined`);
        return { k: 'fn', pos: t.pos, name: t.v };
    }
  }
}

// ---- execution -----------------------------------------------------------------------

/** Absent map entries and nil both print as <no value>; `undefined` marks "no value". */
type V = Value | undefined;

class Exec {
  constructor(private readonly src: string) {}

  private fail(pos: number, at: string, msg: string): never {
    const before = Buffer.from(this.src.slice(0, pos), 'utf8');
    let line = 1;
    let lastNl = -1;
    for (let k = 0; k < before.length; k++)
      if (before[k] === 10) {
        line++;
        lastNl = k;
      }
    throw new TemplateError(`template: ${NAME}:${line}:${before.length - lastNl - 1}: executing "${NAME}" at <${at}>: ${msg}`);
  }

  run(nodes: Node[], dot: V, vars: [string, V][]): string {
    let out = '';
    for (const n of nodes) {
      switch (n.k) {
        case 'text':
          out += n.s;
          break;
        case 'action': {
          const v = this.pipe(n.p, dot, vars);
          if (!n.p.decl.length) out += printValue(v);
          break;
        }
        case 'if':
        case 'with': {
          const scope = [...vars];
          const v = this.pipe(n.p, dot, scope);
          if (truth(v)) out += this.run(n.body, n.k === 'with' ? v : dot, scope);
          else out += this.run(n.els, dot, scope);
          break;
        }
        case 'range': {
          const scope = [...vars];
          const v = this.pipe({ ...n.p, decl: [] }, dot, scope);
          const entries: [Value, Value][] = [];
          if (Array.isArray(v)) v.forEach((x, i) => entries.push([i, x]));
          else if (v instanceof RSet) v.values().forEach((x, i) => entries.push([i, x]));
          else if (isPlainObject(v)) for (const k of sortedKeys(v)) entries.push([k, v[k]!]);
          else if (typeof v === 'number' && Number.isInteger(v)) for (let i = 0; i < v; i++) entries.push([i, i]);
          else if (v !== null && v !== undefined) this.fail(n.p.pos, n.p.text, `range can't iterate over ${printValue(v)}`);
          if (!entries.length) {
            out += this.run(n.els, dot, scope);
            break;
          }
          for (const [k, x] of entries) {
            const inner = [...scope];
            if (n.p.decl.length === 1) inner.push([n.p.decl[0]!, x]);
            else if (n.p.decl.length === 2) inner.push([n.p.decl[0]!, k], [n.p.decl[1]!, x]);
            out += this.run(n.body, x, inner);
          }
          break;
        }
      }
    }
    return out;
  }

  private pipe(p: Pipeline, dot: V, vars: [string, V][]): V {
    let v: V = undefined;
    let first = true;
    for (const cmd of p.cmds) {
      v = this.command(cmd, dot, vars, first ? undefined : { v });
      first = false;
    }
    for (const name of p.decl) {
      if (p.assign) {
        const idx = vars.map((e) => e[0]).lastIndexOf(name);
        if (idx < 0) this.fail(p.pos, p.text, `undefined variable: ${name}`);
        vars[idx] = [name, v];
      } else vars.push([name, v]);
    }
    return v;
  }

  private command(cmd: Command, dot: V, vars: [string, V][], prev: { v: V } | undefined): V {
    const head = cmd[0]!;
    if (head.k === 'fn') {
      const args = cmd.slice(1).map((o) => this.operand(o, dot, vars));
      if (prev) args.push(prev.v);
      return this.call(head, args);
    }
    if (cmd.length > 1 || prev) this.fail(head.pos, opText(head), `can't give argument to non-function ${opText(head)}`);
    return this.operand(head, dot, vars);
  }

  private operand(o: Operand, dot: V, vars: [string, V][]): V {
    switch (o.k) {
      case 'lit':
        return o.v;
      case 'fn':
        return this.call(o, []);
      case 'dot':
        return this.fields(dot, o.fields, o);
      case 'var': {
        const e = [...vars].reverse().find((x) => x[0] === o.name);
        if (!e) this.fail(o.pos, o.name, `undefined variable: ${o.name}`);
        return this.fields(e[1], o.fields, o);
      }
      case 'pipe':
        return this.fields(this.pipe(o.p, dot, [...vars]), o.fields, o);
    }
  }

  private fields(v: V, fields: string[], o: Operand): V {
    for (const f of fields) {
      if (isPlainObject(v)) {
        if (!Object.hasOwn(v, f)) this.fail(o.pos, opText(o), `map has no entry for key "${f}"`);
        v = v[f];
      } else if (v === null || v === undefined) this.fail(o.pos, opText(o), `nil pointer evaluating interface {}.${f}`);
      else this.fail(o.pos, opText(o), `can't evaluate field ${f} in type ${goType(v)}`);
    }
    return v;
  }

  private call(o: Operand & { k: 'fn' }, args: V[]): V {
    const fn = FUNCS[o.name]!;
    try {
      return fn(args);
    } catch (e) {
      if (e instanceof FuncError) this.fail(o.pos, o.name, `error calling ${o.name}: ${e.message}`);
      throw e;
    }
  }
}

function opText(o: Operand): string {
  switch (o.k) {
    case 'dot':
      return o.fields.length ? '.' + o.fields.join('.') : '.';
    case 'var':
      return [o.name, ...o.fields].join('.');
    case 'lit':
      return o.text;
    case 'fn':
      return o.name;
    case 'pipe':
      return '(...)';
  }
}

function goType(v: V): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number' || v instanceof BigNum) return 'json.Number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v) || v instanceof RSet) return '[]interface {}';
  return 'map[string]interface {}';
}

function truth(v: V): boolean {
  if (v === undefined || v === null || v === false || v === '' || v === 0) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof RSet) return v.size > 0;
  if (isPlainObject(v)) return Object.keys(v).length > 0;
  return true;
}

/** fmt.Sprint of the decoded JSON value. */
export function printValue(v: V, nested = false): string {
  if (v === undefined || v === null) return nested ? '<nil>' : '<no value>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number' || v instanceof BigNum) return numberText(v);
  if (Array.isArray(v) || v instanceof RSet) return '[' + (Array.isArray(v) ? v : v.values()).map((x) => printValue(x, true)).join(' ') + ']';
  if (isPlainObject(v)) return 'map[' + sortedKeys(v).map((k) => k + ':' + printValue(v[k], true)).join(' ') + ']';
  return String(v);
}

class FuncError extends Error {}

function len(v: V): number {
  if (typeof v === 'string') return Buffer.byteLength(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof RSet) return v.size;
  if (isPlainObject(v)) return Object.keys(v).length;
  throw new FuncError(`len of type ${goType(v)}`);
}

function cmp(a: V, b: V): number {
  const ka = typeof a === 'number' || a instanceof BigNum ? 'n' : typeof a;
  const kb = typeof b === 'number' || b instanceof BigNum ? 'n' : typeof b;
  if (ka !== kb || (ka !== 'n' && ka !== 'string')) throw new FuncError('incompatible types for comparison');
  return compare(a as Value, b as Value);
}

const FUNCS: Record<string, (a: V[]) => V> = {
  and: (a) => {
    for (const x of a) if (!truth(x)) return x;
    return a[a.length - 1];
  },
  or: (a) => {
    for (const x of a) if (truth(x)) return x;
    return a[a.length - 1];
  },
  not: (a) => !truth(a[0]),
  len: (a) => len(a[0]),
  index: (a) => {
    let v = a[0];
    for (const k of a.slice(1)) {
      if (Array.isArray(v)) {
        if (typeof k !== 'number' || !Number.isInteger(k)) throw new FuncError('cannot index slice/array with type ' + goType(k));
        if (k < 0 || k >= v.length) throw new FuncError(`index out of range: ${k}`);
        v = v[k];
      } else if (isPlainObject(v)) {
        if (typeof k !== 'string') throw new FuncError('value has type ' + goType(k) + '; should be string');
        v = Object.hasOwn(v, k) ? v[k] : undefined;
      } else if (v === null || v === undefined) throw new FuncError('index of untyped nil');
      else throw new FuncError(`can't index item of type ${goType(v)}`);
    }
    return v;
  },
  eq: (a) => {
    if (a.length < 2) throw new FuncError('missing argument for comparison');
    return a.slice(1).some((b) => (a[0] === undefined || b === undefined ? a[0] === b : equal(a[0], b)));
  },
  ne: (a) => !(a[0] === undefined || a[1] === undefined ? a[0] === a[1] : equal(a[0], a[1]!)),
  lt: (a) => cmp(a[0], a[1]) < 0,
  le: (a) => cmp(a[0], a[1]) <= 0,
  gt: (a) => cmp(a[0], a[1]) > 0,
  ge: (a) => cmp(a[0], a[1]) >= 0,
  print: (a) => goSprint(a),
  println: (a) => a.map((x) => printValue(x, true)).join(' ') + '\n',
  printf: (a) => {
    if (typeof a[0] !== 'string') throw new FuncError('wrong type for value; expected string');
    return sprintf(a[0], a.slice(1).map((x) => (x === undefined ? null : x)));
  },
};

/** fmt.Sprint: spaces only between operands when neither is a string. */
function goSprint(a: V[]): string {
  let out = '';
  a.forEach((x, i) => {
    if (i > 0 && typeof x !== 'string' && typeof a[i - 1] !== 'string') out += ' ';
    out += printValue(x, true);
  });
  return out;
}
