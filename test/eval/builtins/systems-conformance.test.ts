// Runs OPA's conformance cases for the jwt*/time/net built-ins directly against the
// built-ins (without the evaluator): each case whose module is a single call with literal
// arguments, `p := x if { fn(args..., out) }`, is checked against want_result / want_error.

import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { callBuiltin, fakeContext } from './fake-context.js';
import { RSet, makeObject, parseNumber, toJS, type Value } from '../../../src/value/index.js';
import { OPA_CONFORMANCE_DIR, hasOpaConformance } from '../../opa-conformance.js';

const ROOT = hasOpaConformance('OPA\'s jwt and net conformance cases run against the built-ins') ? path.join(OPA_CONFORMANCE_DIR!, 'v1') : undefined;
const DIRS = [
  'jwtbuiltins',
  'jwtdecodeverify',
  'jwtencodesign',
  'jwtencodesignraw',
  'jwtencodesignheadererrors',
  'jwtverifyrsa',
  'netcidrcontains',
  'netcidrexpand',
  'netcidrintersects',
  'netcidrisvalid',
  'netcidrmerge',
];

/** A tiny reader for Rego literal terms (strings, raw strings, numbers, arrays, objects, sets). */
function parseTerm(src: string, pos: { i: number }): Value {
  const ws = () => {
    while (pos.i < src.length && /[\s]/.test(src[pos.i]!)) pos.i++;
  };
  ws();
  const c = src[pos.i];
  if (c === '"') {
    let j = pos.i + 1;
    while (src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
    const s = JSON.parse(src.slice(pos.i, j + 1)) as string;
    pos.i = j + 1;
    return s;
  }
  if (c === '`') {
    const j = src.indexOf('`', pos.i + 1);
    const s = src.slice(pos.i + 1, j);
    pos.i = j + 1;
    return s;
  }
  if (c === '[' || c === '{') {
    const close = c === '[' ? ']' : '}';
    pos.i++;
    const items: Value[] = [];
    const entries: [Value, Value][] = [];
    for (;;) {
      ws();
      if (src[pos.i] === close) {
        pos.i++;
        break;
      }
      const k = parseTerm(src, pos);
      ws();
      if (c === '{' && src[pos.i] === ':') {
        pos.i++;
        entries.push([k, parseTerm(src, pos)]);
      } else items.push(k);
      ws();
      if (src[pos.i] === ',') pos.i++;
    }
    if (c === '[') return items;
    if (items.length > 0) return RSet.from(items);
    return makeObject(entries);
  }
  const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(src.slice(pos.i));
  if (!m) throw new Error('not a literal at ' + src.slice(pos.i, pos.i + 20));
  pos.i += m[0].length;
  if (m[0] === 'true') return true;
  if (m[0] === 'false') return false;
  if (m[0] === 'null') return null;
  return parseNumber(m[0])!;
}

interface Case {
  note: string;
  modules?: string[];
  want_result?: { x: unknown }[];
  want_error?: string;
  want_error_code?: string;
}

function extractCall(mod: string): { name: string; args: Value[] } | undefined {
  const m = /\n\s*p\s*(?:contains\s+x|:=\s*(?:x|\[x, y, z\]))\s+if\s*\{\s*([a-z_.0-9]+)\(/.exec(mod);
  if (!m) return undefined;
  const name = m[1]!;
  const pos = { i: m.index + m[0].length };
  const args: Value[] = [];
  try {
    for (;;) {
      const rest = mod.slice(pos.i).trimStart();
      if (/^(x|\[x, y, z\]|__local\d+__)\s*,?\s*\)/.test(rest)) break;
      args.push(parseTerm(mod, pos));
      while (/[\s,]/.test(mod[pos.i]!)) pos.i++;
    }
  } catch {
    return undefined;
  }
  return { name, args };
}

function normalise(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}

for (const dir of ROOT ? DIRS : []) {
  const full = path.join(ROOT!, dir);
  if (!fs.existsSync(full)) continue;
  describe(dir, () => {
    for (const f of fs.readdirSync(full).sort()) {
      for (const doc of yaml.loadAll(fs.readFileSync(path.join(full, f), 'utf8')) as { cases: Case[] }[]) {
        for (const c of doc?.cases ?? []) {
          const call = c.modules?.length === 1 ? extractCall(c.modules[0]!) : undefined;
          if (!call) continue;
          const contains = /p contains x/.test(c.modules![0]!);
          it(c.note, () => {
            const ctx = fakeContext(call.name);
            let got: Value | undefined;
            let error: Error | undefined;
            try {
              got = callBuiltin(call.name, call.args, ctx);
            } catch (e) {
              error = e as Error;
            }
            if (c.want_error_code || c.want_error !== undefined) {
              expect(error, 'expected an error').toBeDefined();
              const msg = `${c.want_error_code ?? ''}: ${call.name}: ${error!.message}`;
              if (c.want_error) expect(msg).toContain(c.want_error.replace(/^eval_builtin_error: /, ''));
              return;
            }
            if (error) throw error;
            let want = c.want_result![0]!.x;
            let value: unknown = toJS(got!);
            if (contains) value = [value];
            if (Array.isArray(want) && got instanceof RSet) want = [...(want as unknown[])].sort();
            expect(normalise(value)).toEqual(normalise(want));
          });
        }
      }
    }
  });
}
