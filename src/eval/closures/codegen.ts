// Runs of test expressions generated as JavaScript, one function per site. In
//
//     route.method == input.method
//     path_matches(route.path, input.path)      # inlined: count(..) == count(..), every, ...
//     every scope in route.scopes { scope in token_scopes }
//
// every expression only tests (binds nothing the rest of the body can see), so the run holds
// when each expression holds once, and the rest of the body runs at most once after it. As
// closures, each test is a chain of calls into code shared by every site made from the same
// factory: V8 sees all of them at each call and inlines none. Here the run becomes the text
// of one function (`new Function`), made per site, in which the comparisons, the reads of
// slots and of constant-key refs, the `every` loops over arrays and the bodies of inlined
// functions are plain statements; what the generator does not write out itself (a data ref,
// a built-in call, `every` over a set or object) it calls through the closure the planner
// makes for that term anyway, from a call site of its own.
//
// What is generated: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`, `=` between values,
// `x in coll`), bare terms (truthiness), `not` of those, `every k, v in <single value>` with
// fresh variables, and calls to functions inline.ts would inline whose rule bodies are made
// of the same (arguments plain variables). A run is generated when it has two expressions or
// more, or one inlined call or `every`. Never for traced plans or expressions under `with`;
// calls are written out only where inline.ts inlines them (not in printing policies); when
// any `with` mock is active at run time the run takes the closures of the same expressions
// (planned as well), which check each mock.
//
// Safety: the text holds only code written here, slot numbers, labels, and constants as
// JSON literals (`JSON.stringify` of a string is a JS string literal); every other value,
// function or key path reaches the code as a parameter of the function that makes it.

import type { Every, Expr, Term } from '../../lang/ast.js';
import { forEachVarShallow, isEvery, isSome, refName } from '../../compiler/terms.js';
import type { RuleNode } from '../../compiler/tree.js';
import { member2 } from '../builtins/internal.js';
import { lookup } from '../../value/collections.js';
import { compare, compareStrings, equal, pathReader, type Value } from '../../value/index.js';
import type { PlanCtx } from './ctx.js';
import { everyHolds } from './exprs.js';
import { inlineDepth, inlineRuleCtx } from './inline.js';
import { resolveCallee } from './calls.js';
import { compileTerm, constValue } from './terms.js';
import type { Step } from './types.js';

/**
 * Generated functions alive at once (made and not yet collected). A plan that is replaced
 * (a new bundle revision, a module added or changed) lets its functions go; a process that
 * keeps more plans alive than this stops generating until some are collected. Counted live,
 * not made: a server whose bundle changes every few seconds makes a few functions per
 * revision for as long as it runs.
 */
let live = 0;
const collected = new FinalizationRegistry<undefined>(() => {
  live--;
});

/**
 * The switch (tests compare answers with it off), how many runs of a site take the closures
 * before its function is made (tests set 0), how many functions were made in all, how many
 * may be alive at once, and how many are.
 */
export const codegen = {
  enabled: true,
  warmup: 16,
  built: 0,
  maxLive: 10_000,
  get live(): number {
    return live;
  },
};

let suppressed = 0;

/** Plans `fn` without generated runs (the closures a generated run falls back to). */
export function withoutCodegen<T>(fn: () => T): T {
  suppressed++;
  try {
    return fn();
  } finally {
    suppressed--;
  }
}

/** Whether runs may be generated where the planner is now. */
export function codegenOn(pc: PlanCtx): boolean {
  return codegen.enabled && suppressed === 0 && !pc.traced && live < codegen.maxLive;
}

const COMPARE_OPS = new Set(['equal', 'neq', 'lt', 'lte', 'gt', 'gte', 'internal.member_2']);

// Numbers and strings first, as exprs.ts's comparisons do.
function cmp(a: Value, b: Value): number {
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  return compare(a, b);
}

/** One run being generated: the code of its expressions (last first) and its parameters. */
export class TestRun {
  private readonly parts: string[] = [];
  private readonly names: string[] = [];
  private readonly values: unknown[] = [];
  private ids = 0;
  private rich = false;

  constructor(private readonly after: Step) {}

  /** Puts `e` in front of the run if it can be generated here; false (and nothing added) if not. */
  prepend(e: Expr, pc: PlanCtx): boolean {
    const rich = this.rich;
    const params = this.values.length;
    const code = this.expr(e, pc, 'L');
    if (code === undefined) {
      // parameters of the part written before it gave up are not the function's
      this.rich = rich;
      this.names.length = params;
      this.values.length = params;
      return false;
    }
    this.parts.unshift(code);
    return true;
  }

  /**
   * The run's step: `plain` (the same expressions as closures) for its first runs, then the
   * generated function. Made on first need because making one costs ~50 µs (parsing, then
   * compiling at its first call), which a policy of thousands of rules evaluated once would
   * pay for nothing.
   */
  step(plain: Step): Step {
    if (this.parts.length === 0 || (this.parts.length === 1 && !this.rich)) return plain;
    const { after, names, values } = this;
    let text = `if (fr.ev.mocks !== null) return plain(fr);\nconst s = fr.slots;\nL: {\n${this.parts.join('')}return next(fr);\n}\nreturn false;\n`;
    let calls = 0;
    let made: Step | undefined;
    return (fr) => {
      if (made !== undefined) return made(fr);
      if (++calls <= codegen.warmup || live >= codegen.maxLive) return plain(fr);
      // the site number keeps texts apart: V8 shares what it learns between functions made
      // from the same text, which is what per-site code is for
      const src = `return function testRun(fr) { // site ${codegen.built++}\n${text}}`;
      try {
        const make = new Function('plain', 'next', ...names, src) as (...a: unknown[]) => Step;
        made = make(plain, after, ...values);
        live++;
        collected.register(made, undefined);
      } catch {
        made = plain; // code generation disallowed (--disallow-code-generation-from-strings)
      }
      text = '';
      return made(fr);
    };
  }

  private param(v: unknown): string {
    const name = `p${this.values.length}`;
    this.names.push(name);
    this.values.push(v);
    return name;
  }

  private id(prefix: string): string {
    return `${prefix}${this.ids++}`;
  }

  /** Statements that `break fail` unless `e` holds. */
  private expr(e: Expr, pc: PlanCtx, fail: string): string | undefined {
    if ((e.with && e.with.length) || isSome(e.terms)) return undefined;
    if (e.negated) {
      const inner = this.id('N');
      const code = this.positive(e, pc, inner);
      return code === undefined ? undefined : `${inner}: {\n${code}break ${fail};\n}\n`;
    }
    return this.positive(e, pc, fail);
  }

  private positive(e: Expr, pc: PlanCtx, fail: string): string | undefined {
    const t = e.terms;
    if (isEvery(t)) return this.every(t, pc, fail);
    if (Array.isArray(t)) return this.call(t, pc, fail);
    const v = this.value(t as Term, pc, fail);
    return v && `{\n${v.code}if (${v.ref} === false) break ${fail};\n}\n`;
  }

  private call(t: Term[], pc: PlanCtx, fail: string): string | undefined {
    const op = t[0]!;
    const args = t.slice(1);
    const name = refName(op);
    if (name === undefined) return undefined;
    if (args.length === 2 && (COMPARE_OPS.has(name) || name === 'eq')) return this.compare(name, args[0]!, args[1]!, pc, fail);
    if (op.type === 'ref' && op.value[0]?.type === 'var' && op.value[0].value === 'data') {
      const node = pc.root.find(op.value.slice(1).map((x) => (x.type === 'string' ? x.value : '')));
      if (node?.isFunction && args.length === node.arity) return this.inlined(node, args, pc, fail);
    }
    return undefined;
  }

  private compare(name: string, a: Term, b: Term, pc: PlanCtx, fail: string): string | undefined {
    const x = this.value(a, pc, fail);
    if (!x) return undefined;
    const y = this.value(b, pc, fail);
    if (!y) return undefined;
    const [p, q] = [x.ref, y.ref];
    let test: string;
    if (name === 'equal' || name === 'neq' || name === 'eq') {
      // a scalar equals only itself (a number a double holds exactly is always a JS number);
      // only two objects (arrays, sets, objects, big numbers) can be equal without being identical
      const scalar = isScalar(constValue(a)) || isScalar(constValue(b));
      test = scalar ? `${p} === ${q}` : `(${p} === ${q} || (typeof ${p} === 'object' && typeof ${q} === 'object' && ${this.param(equal)}(${p}, ${q})))`;
      if (name === 'neq') test = `!${scalar ? `(${test})` : test}`;
    } else if (name === 'internal.member_2') {
      test = `${this.param(member2)}(${p}, ${q})`;
    } else {
      const js = { lt: '<', lte: '<=', gt: '>', gte: '>=' }[name]!;
      test = `(typeof ${p} === 'number' && typeof ${q} === 'number' ? ${p} ${js} ${q} : ${this.param(cmp)}(${p}, ${q}) ${js} 0)`;
    }
    return `{\n${x.code}${y.code}if (!(${test})) break ${fail};\n}\n`;
  }

  /**
   * A term's value: statements that `break fail` when it is undefined, and an expression for
   * it (a literal or a local). Undefined when the term is not single-valued here.
   */
  private value(t: Term, pc: PlanCtx, fail: string): { code: string; ref: string } | undefined {
    const c = constValue(t);
    if (c !== undefined) return { code: '', ref: literal(c) ?? this.param(c) };
    if (t.type === 'var') {
      if (t.value === 'input') return this.local('fr.ev.input', fail);
      if (t.value !== 'data' && pc.isBound(t.value)) return this.local(`s[${pc.slotOf(t.value)}]`, fail);
    }
    if (t.type === 'ref') {
      const r = this.ref(t.value, pc, fail);
      if (r) return r;
    }
    if (t.type === 'call' && refName(t.value[0]!) === 'count' && t.value.length === 2) {
      const x = this.value(t.value[1]!, pc, fail);
      if (!x) return undefined;
      // an array's length in place, anything else through the built-in (errors, strings, ...)
      const count = resolveCallee(t.value[0]!, pc, t.location).call;
      if (count) {
        const n = this.local(`Array.isArray(${x.ref}) ? ${x.ref}.length : ${this.param(count)}(fr, [${x.ref}])`, fail);
        return { code: x.code + n.code, ref: n.ref };
      }
    }
    // anything else single-valued: through its planned getter
    const tc = compileTerm(t, pc);
    if (!tc.get || tc.pattern) return undefined;
    return this.local(`${this.param(tc.get)}(fr)`, fail);
  }

  /** `x.a.b`, `input.a`, `path[i]`: a bound variable or input, then constants or bound variables. */
  private ref(terms: Term[], pc: PlanCtx, fail: string): { code: string; ref: string } | undefined {
    const [head, ...rest] = terms;
    if (!head || head.type !== 'var' || head.value === 'data' || rest.length === 0) return undefined;
    if (head.value !== 'input' && !pc.isBound(head.value)) return undefined;
    const from = head.value === 'input' ? 'fr.ev.input' : `s[${pc.slotOf(head.value)}]`;
    const keys = rest.map(constValue);
    if (keys.every((k) => typeof k === 'string')) {
      // the reader terms.ts uses for the same ref (own inline caches per head and path)
      return this.local(`${this.param(pathReader(head.value, keys as string[]))}(${from})`, fail);
    }
    const cur = this.id('v');
    let code = `let ${cur} = ${from};\n`;
    const look = this.param(lookup);
    for (let i = 0; i < rest.length; i++) {
      const k = keys[i];
      if (k !== undefined) code += `${cur} = ${look}(${cur}, ${literal(k) ?? this.param(k)});\n`;
      else {
        const t = rest[i]!;
        if (t.type !== 'var' || t.value === 'input' || t.value === 'data' || !pc.isBound(t.value)) return undefined;
        const key = `s[${pc.slotOf(t.value)}]`;
        code += `${cur} = ${key} === undefined ? undefined : ${look}(${cur}, ${key});\n`;
      }
      code += `if (${cur} === undefined) break ${fail};\n`;
    }
    return { code, ref: cur };
  }

  private local(expr: string, fail: string): { code: string; ref: string } {
    const v = this.id('v');
    return { code: `const ${v} = ${expr};\nif (${v} === undefined) break ${fail};\n`, ref: v };
  }

  /** `every k, v in dom { body }`: arrays in a loop here, anything else through the closures. */
  private every(t: Every, pc: PlanCtx, fail: string): string | undefined {
    const fresh = (x: Term | undefined) => (x && x.type === 'var' && x.value !== 'input' && x.value !== 'data' && !pc.isBound(x.value) ? x.value : undefined);
    const kn = t.key ? fresh(t.key) : undefined;
    const vn = fresh(t.value);
    if ((t.key && kn === undefined) || vn === undefined || kn === vn) return undefined;
    const d = this.value(t.domain, pc, fail);
    if (!d) return undefined;
    const kv: string[] = [];
    if (t.key) forEachVarShallow(t.key, (n) => kv.push(n));
    forEachVarShallow(t.value, (n) => kv.push(n));
    const ks = kn === undefined ? undefined : pc.slotOf(kn);
    const vs = pc.slotOf(vn);
    const each = this.id('E');
    const body = pc.withBound(kv, () => {
      let code = '';
      for (const e of t.body) {
        const c = this.expr(e, pc, each);
        if (c === undefined) return undefined;
        code += c;
      }
      return code;
    });
    if (body === undefined) return undefined;
    const other = this.param(withoutCodegen(() => everyHolds(t, pc).holds));
    this.rich = true;
    const ok = this.id('ok');
    const i = this.id('i');
    const arr = d.ref;
    const freshNow = ks === undefined ? `s[${vs}] === undefined` : `s[${vs}] === undefined && s[${ks}] === undefined`;
    const clear = `${ks === undefined ? '' : `s[${ks}] = undefined; `}s[${vs}] = undefined;\n`;
    return (
      `{\n${d.code}` +
      `if (Array.isArray(${arr}) && ${freshNow}) {\n` +
      `const q = fr.ev.q;\nlet ${ok} = true;\n` +
      `for (let ${i} = 0; ${i} < ${arr}.length; ${i}++) {\n` +
      `q.tick();\n${ks === undefined ? '' : `s[${ks}] = ${i}; `}s[${vs}] = ${arr}[${i}];\n` +
      `${each}: {\n${body}continue;\n}\n` +
      `${ok} = false;\nbreak;\n}\n` +
      clear +
      `if (!${ok}) break ${fail};\n` +
      `} else if (!${other}(fr, ${arr})) break ${fail};\n}\n`
    );
  }

  /** A call inline.ts would inline, every rule's body written out here. */
  private inlined(node: RuleNode, args: Term[], pc: PlanCtx, fail: string): string | undefined {
    const depth = inlineDepth(node, pc);
    if (depth === undefined) return undefined;
    let code = '';
    const slots: number[] = [];
    const computed: number[] = [];
    let store = '';
    for (const a of args) {
      if (a.type === 'var' && a.value !== 'input' && a.value !== 'data' && pc.isBound(a.value)) {
        // a plain variable is read from the caller's slot, as inline.ts does
        const s = pc.slotOf(a.value);
        code += `if (s[${s}] === undefined) break ${fail};\n`;
        slots.push(s);
        continue;
      }
      const v = this.value(a, pc, fail);
      if (!v) return undefined;
      const s = pc.hidden();
      code += v.code;
      store += `s[${s}] = ${v.ref};\n`;
      slots.push(s);
      computed.push(s);
    }
    code += store;
    const ok = this.id('ok');
    code += `let ${ok} = false;\n`;
    for (const r of node.funcs) {
      const rpc = inlineRuleCtx(r, pc, depth + 1);
      const ruleArgs = r.args ?? [];
      for (let i = 0; i < ruleArgs.length; i++) {
        const a = ruleArgs[i]!;
        if (a.type !== 'var' || rpc.slots.has(a.value)) return undefined;
        rpc.slots.set(a.value, slots[i]!);
        rpc.bound.add(a.value);
      }
      const label = this.id('R');
      let body = '';
      for (const e of r.body) {
        const c = this.expr(e, rpc, label);
        pc.nslots = Math.max(pc.nslots, rpc.nslots);
        if (c === undefined) return undefined;
        body += c;
      }
      code += `if (!${ok}) {\n${label}: {\n${body}${ok} = true;\n}\n}\n`;
    }
    for (const s of computed) code += `s[${s}] = undefined;\n`;
    this.rich = true;
    return `{\n${code}if (!${ok}) break ${fail};\n}\n`;
  }
}

function isScalar(v: Value | undefined): boolean {
  return v === null || (v !== undefined && typeof v !== 'object');
}

/** A JS literal for a string, boolean, null or plain number; undefined for anything else. */
function literal(v: Value): string | undefined {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean' || v === null) return String(v);
  if (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0)) return String(v);
  return undefined;
}
