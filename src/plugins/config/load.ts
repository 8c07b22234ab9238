// Reading the configuration document as OPA does: the file (YAML is a superset of JSON)
// with ${VAR} replaced by the environment before parsing, then --set / --set-file overrides
// (Helm "strvals" syntax: dotted keys, [i] indexes, {a,b} lists, commas between pairs).

import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { ConfigError } from './types.js';

type Obj = Record<string, unknown>;

/** ${NAME} -> the variable's value, empty when unset (OPA uses os.Getenv). */
export function substituteEnv(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return text.replace(/\$\{([^}]*)\}/g, (_m, name: string) => env[name] ?? '');
}

/**
 * The variables the configuration file names with ${NAME} that the environment does not set:
 * OPA reads them as empty, so the error a user sees is about the key left empty; saying
 * which variable it came from is the useful part.
 */
export function unsetEnvVars(opts: LoadConfigOptions): string[] {
  if (!opts.configFile) return [];
  let text: string;
  try {
    text = readFileSync(opts.configFile, 'utf8');
  } catch {
    return [];
  }
  const env = opts.env ?? process.env;
  const names = [...text.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]!).filter((n) => env[n] === undefined);
  return [...new Set(names)];
}

export function parseConfigText(text: string, env?: NodeJS.ProcessEnv): Obj {
  let doc: unknown;
  try {
    doc = yaml.load(substituteEnv(text, env), { schema: yaml.CORE_SCHEMA });
  } catch (e) {
    throw new ConfigError(`invalid configuration: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError('invalid configuration: the document must be an object');
  return doc as Obj;
}

export interface LoadConfigOptions {
  configFile?: string;
  /** --set values, each "k=v[,k2=v2...]". */
  set?: string[];
  /** --set-file values, each "k=path": the file's contents become the string value. */
  setFile?: string[];
  env?: NodeJS.ProcessEnv;
}

/** The raw configuration document (not yet validated). */
export function loadConfigDocument(opts: LoadConfigOptions): Obj {
  let doc: Obj = {};
  if (opts.configFile) {
    let text: string;
    try {
      text = readFileSync(opts.configFile, 'utf8');
    } catch (e) {
      throw new ConfigError(`config file ${opts.configFile}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
    }
    doc = parseConfigText(text, opts.env);
  }
  for (const s of opts.set ?? []) applySet(doc, s, false);
  for (const s of opts.setFile ?? []) applySet(doc, s, true);
  return doc;
}

/** strvals' typing of a scalar: booleans, null and integers become typed values. */
export function typedValue(s: string): unknown {
  if (s === 'true') return true;
  if (s === 'false') return false;
  if (s === 'null') return null;
  if (/^[-+]?(0|[1-9][0-9]*)$/.test(s)) {
    const n = Number(s);
    if (Number.isSafeInteger(n)) return n;
  }
  return s;
}

/** Splits on commas not escaped with a backslash and not inside {...}. */
function splitTop(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    if (c === sep && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

type Seg = string | number;

function parseKey(key: string, whole: string): Seg[] {
  const segs: Seg[] = [];
  for (const part of key.split('.')) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!m || (m[1] === '' && !m[2])) throw new ConfigError(`invalid --set value ${JSON.stringify(whole)}: bad key ${JSON.stringify(key)}`);
    if (m[1]) segs.push(m[1]);
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) segs.push(Number(idx[1]));
  }
  return segs;
}

function setPath(doc: Obj, segs: Seg[], value: unknown): void {
  let cur: Obj | unknown[] = doc;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const last = i === segs.length - 1;
    const nextIsIndex = typeof segs[i + 1] === 'number';
    const container = cur as Record<string | number, unknown>;
    if (last) {
      container[seg] = value;
      return;
    }
    let child = container[seg];
    if (nextIsIndex ? !Array.isArray(child) : child === null || typeof child !== 'object' || Array.isArray(child)) {
      child = nextIsIndex ? [] : {};
      container[seg] = child;
    }
    cur = child as Obj | unknown[];
  }
}

/** Applies one --set (or --set-file) argument to the document. */
export function applySet(doc: Obj, arg: string, fromFile: boolean): void {
  for (const pair of splitTop(arg, ',')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ConfigError(`invalid --set value ${JSON.stringify(arg)}: key "${pair}" has no value`);
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    let value: unknown;
    if (fromFile) {
      try {
        value = readFileSync(raw, 'utf8');
      } catch (e) {
        throw new ConfigError(`invalid --set-file value ${JSON.stringify(arg)}: ${(e as Error).message}`);
      }
    } else if (raw.startsWith('{') && raw.endsWith('}')) {
      const inner = raw.slice(1, -1);
      value = inner === '' ? [] : splitTop(inner, ',').map(typedValue);
    } else value = typedValue(raw);
    setPath(doc, parseKey(key, arg), value);
  }
}
