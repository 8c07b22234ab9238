// The policy a replay runs against: a fresh RegolithEngine holding either a bundle
// (activated exactly as the bundle plugin activates a downloaded one: data under its
// roots, modules with the Rego version its manifest gives them) or a set of modules plus
// data (the playground's edited modules, `regolith replay --policy dir`). Besides
// evaluating, a candidate names its rules: which rules one decision evaluated (from the
// engine's full explanation trace) and a text signature of every rule (to tell which rules
// a new policy changed against a baseline).

import { readBundleFromBytes, type Bundle } from '../../bundle/index.js';
import { isPlainObject, parseJSON, type Value } from '../../engine/index.js';
import { RegolithEngine } from '../../engine/store-engine.js';
import type { CustomBuiltin } from '../../engine/custom-builtins.js';
import { StoreActivator } from '../../plugins/bundle/activate.js';

export interface CandidateSource {
  /** A bundle: the bytes of its .tar.gz, or one already read (readBundle, readBundleFromBytes). */
  bundle?: Buffer | Uint8Array | Bundle;
  /** Module text by file name (used when there is no bundle). */
  modules?: Record<string, string>;
  /** Base data for a modules-only candidate (a plain JSON object). */
  data?: unknown;
  /** Syntax of modules that do not say (a bundle's manifest may); default v1. */
  regoVersion?: 'v0' | 'v1';
  /** Custom built-ins the policy calls (the server's own, for the console's impact analysis). */
  builtins?: Iterable<CustomBuiltin>;
}

export interface Candidate {
  /** The engine holding the candidate policy and data. */
  readonly engine: RegolithEngine;
  /** The document at `path` (segments under data) for `input` (undefined: no input). */
  evaluate(path: string[], input: Value | undefined): Promise<Value | undefined>;
  /**
   * The rules (`pkg.rule`, without `data.`) the decision at `path` evaluated, from a full
   * trace, plus the rule the path itself names when the candidate defines it (a rule that
   * only has a default is never "entered" in a trace).
   */
  evaluatedRules(path: string[], input: Value | undefined): Promise<string[]>;
  /** Every rule (`pkg.rule`) with a signature of its text: its definitions' ASTs without locations. */
  ruleSignatures(): Map<string, string>;
  /** The package (segments under data) of each rule `ruleSignatures` names. */
  rulePackages(): Map<string, string[]>;
}

/** The bundle name a candidate bundle is activated under. */
export const CANDIDATE_BUNDLE = 'candidate';

interface TermJSON {
  type: string;
  value?: unknown;
}

interface RuleJSON {
  head?: { name?: string; ref?: TermJSON[] };
}

interface ModuleJSON {
  package?: { path?: TermJSON[] };
  rules?: RuleJSON[];
}

/** `package a.b` (JSON AST) -> ["a", "b"]. */
function packageOf(ast: ModuleJSON): string[] {
  const path = ast.package?.path ?? [];
  return path.slice(1).map((t) => String(t.value));
}

/** A rule head's name as the static part of its ref: `a.b[x] contains ...` -> "a.b". */
function ruleNameOf(rule: RuleJSON): string {
  const ref = rule.head?.ref;
  if (Array.isArray(ref) && ref.length) {
    const segs = [String(ref[0]!.value)];
    for (const t of ref.slice(1)) {
      if (t.type !== 'string') break;
      segs.push(String(t.value));
    }
    return segs.join('.');
  }
  return rule.head?.name ?? '';
}

class EngineCandidate implements Candidate {
  private signatures: Map<string, string> | undefined;
  private rulePkgs = new Map<string, string[]>();
  private packages: Map<string, string[]> | undefined;
  private ruleNames: Set<string> | undefined;

  constructor(readonly engine: RegolithEngine) {}

  async evaluate(path: string[], input: Value | undefined): Promise<Value | undefined> {
    const r = await this.engine.evaluate(path, { input });
    return r.result;
  }

  /** Module id -> package segments, from the engine's own parsed modules. */
  private packagesById(): Map<string, string[]> {
    if (!this.packages) {
      this.packages = new Map();
      for (const p of this.engine.listPolicies()) this.packages.set(p.id, packageOf(p.ast as unknown as ModuleJSON));
    }
    return this.packages;
  }

  async evaluatedRules(path: string[], input: Value | undefined): Promise<string[]> {
    const r = await this.engine.evaluate(path, { input, explain: 'full' });
    const events = Array.isArray(r.explanation) ? (r.explanation as unknown as Record<string, unknown>[]) : [];
    const pkgs = this.packagesById();
    const out = new Set<string>();
    for (const e of events) {
      if (e['type'] !== 'rule' || e['op'] !== 'enter') continue;
      const node = e['node'] as RuleJSON | null;
      const loc = (e['location'] ?? (node as { location?: unknown } | null)?.location) as { file?: string } | undefined;
      const pkg = loc?.file !== undefined ? pkgs.get(loc.file) : undefined;
      if (!node || !pkg) continue;
      out.add([...pkg, ruleNameOf(node)].join('.'));
    }
    const own = path.join('.');
    if (this.names().has(own)) out.add(own);
    return [...out].sort();
  }

  private names(): Set<string> {
    this.ruleNames ??= new Set(this.ruleSignatures().keys());
    return this.ruleNames;
  }

  rulePackages(): Map<string, string[]> {
    this.ruleSignatures();
    return this.rulePkgs;
  }

  ruleSignatures(): Map<string, string> {
    if (this.signatures) return this.signatures;
    const defs = new Map<string, string[]>();
    for (const p of this.engine.listPolicies()) {
      const ast = p.ast as unknown as ModuleJSON;
      const pkg = packageOf(ast);
      for (const rule of ast.rules ?? []) {
        const name = [...pkg, ruleNameOf(rule)].join('.');
        this.rulePkgs.set(name, pkg);
        let list = defs.get(name);
        if (!list) defs.set(name, (list = []));
        // the AST is OPA's JSON form without locations: moving a rule or reformatting it is no change
        list.push(JSON.stringify(rule));
      }
    }
    this.signatures = new Map([...defs].map(([k, v]) => [k, v.sort().join('\n')]));
    return this.signatures;
  }
}

/**
 * Data as a store value: a Value (JSON.parse output, parseJSON output with exact numbers)
 * is used as is; anything else JSON-like goes through its JSON text.
 */
function toValue(v: unknown): Value {
  if (isPlainObject(v as Value)) return v as Value;
  return parseJSON(JSON.stringify(v));
}

/**
 * Builds the candidate's engine. A bundle is activated as bundle "candidate"; `modules`
 * and `data` are used only without a bundle. Throws on a bad bundle or a policy that does
 * not parse or compile (ActivationError / EngineError, with the diagnostics).
 */
export async function loadCandidate(c: CandidateSource): Promise<Candidate> {
  const engine = new RegolithEngine({ regoVersion: c.regoVersion ?? 'v1', builtins: c.builtins });
  if (c.bundle) {
    if (c.modules || c.data !== undefined) throw new Error('a candidate is a bundle or modules (with data), not both');
    const bundle = c.bundle instanceof Uint8Array ? await readBundleFromBytes(c.bundle) : c.bundle;
    await new StoreActivator(engine, { regoVersion: c.regoVersion }).activate(CANDIDATE_BUNDLE, bundle);
    return new EngineCandidate(engine);
  }
  if (!c.modules) throw new Error('a candidate needs a bundle or modules');
  const data = c.data === undefined ? undefined : toValue(c.data);
  if (data !== undefined && !isPlainObject(data)) throw new Error('candidate data must be a JSON object');
  const modules = c.modules;
  await engine.store.transact((txn) => {
    engine.installModules({ upsert: Object.entries(modules).map(([id, raw]) => ({ id, raw, regoVersion: c.regoVersion })) }, txn);
    if (data) for (const [k, v] of Object.entries(data)) txn.write('add', [k], v);
  });
  return new EngineCandidate(engine);
}
